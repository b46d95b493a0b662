package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.jmh.AllocationMeter;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * Allocation budgets of the Java worker's own work per job, as {@code HotPathAllocationTest}
 * keeps the server's: bytes allocated per job do not depend on the machine's load, and a change
 * that parses, copies or converts a job once more goes over its budget. Each budget is about 1.1
 * times what the path allocated when it was set (issue 17, session 29): tighter than the
 * server's, because reading jobs through Jackson's generic reader for records instead of
 * {@link JobDeserializer} costs only a fifth more.
 */
class WorkerPathAllocationTest {
  /**
   * 868 bytes when set: the job, its strings and instants, and its payload as a tree (an object
   * node, its map and three value nodes); 1,047 through Jackson's generic reader for records.
   */
  private static final long READ_LINE_BUDGET = 950;
  /** 450 bytes when set: the reader and parser over the tree, and the payload record. */
  private static final long BIND_AND_HANDLE_BUDGET = 500;

  private final WorkerPathBenchmark benchmark = new WorkerPathBenchmark();

  @Test
  void readingATakeStreamLine() {
    long perJob = bytesPerJob(benchmark::readTakeStream);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(READ_LINE_BUDGET);
  }

  @Test
  void bindingThePayloadAndCallingTheHandler() {
    long perJob = bytesPerJob(benchmark::bindAndHandle);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(BIND_AND_HANDLE_BUDGET);
  }

  private static long bytesPerJob(Callable<?> round) {
    return AllocationMeter.bytesPerUnit(WorkerPathBenchmark.JOBS, () -> { }, () -> {
      try {
        round.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
