package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
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
  private static final int ROUNDS = 30;
  /**
   * 868 bytes when set: the job, its strings and instants, and its payload as a tree (an object
   * node, its map and three value nodes); 1,047 through Jackson's generic reader for records.
   */
  private static final long READ_LINE_BUDGET = 950;
  /** 450 bytes when set: the reader and parser over the tree, and the payload record. */
  private static final long BIND_AND_HANDLE_BUDGET = 500;

  private final WorkerPathBenchmark benchmark = new WorkerPathBenchmark();

  @Test
  void readingATakeStreamLine() throws Exception {
    long perJob = bytesPerJob(benchmark::readTakeStream);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(READ_LINE_BUDGET);
  }

  @Test
  void bindingThePayloadAndCallingTheHandler() throws Exception {
    long perJob = bytesPerJob(benchmark::bindAndHandle);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(BIND_AND_HANDLE_BUDGET);
  }

  private interface Round {
    Object run() throws Exception;
  }

  private static long bytesPerJob(Round round) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long allocated = 0;
    for (int i = 0; i < 2 * ROUNDS; i++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      round.run();
      if (i >= ROUNDS) {
        allocated += threads.getCurrentThreadAllocatedBytes() - before;
      }
    }
    return allocated / ((long) ROUNDS * WorkerPathBenchmark.JOBS);
  }
}
