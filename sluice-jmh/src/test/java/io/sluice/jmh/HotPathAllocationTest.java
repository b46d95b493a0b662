package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Allocation budgets of the per-job hot paths, the regression check of the JMH benchmarks that
 * the build can run: bytes allocated per job are the same on a busy machine as on an idle one,
 * where timings are not. Each budget is about 1.5 times what the path allocated when it was set
 * (docs/decisions.md "Hot-path allocation budgets"); a change that copies or re-encodes per job
 * again goes over it.
 */
class HotPathAllocationTest {
  /**
   * 275 bytes when set (issue 17, session 14): the job, its payload copy and its id, read byte by
   * byte by PlainEnqueueReader; 376 through Jackson's tokens, which made each job's type and queue
   * strings of their own. Set below that, so a plain body that falls back to Jackson fails it.
   */
  private static final long READ_BULK_BUDGET = 330;
  /**
   * 4 bytes when set (issue 17, session 13): a plain job's answer is laid out in one reused
   * buffer; 145 before, mostly the id's text. Set above 1.5 times, to stay clear of noise.
   */
  private static final long BULK_ANSWER_BUDGET = 24;
  /**
   * 9 bytes when set, laid out like the answers; 168 with the id made a string, 264 with the
   * payload one too.
   */
  private static final long STREAM_LINE_BUDGET = 24;
  /**
   * 0 bytes when set (issue 17, session 25): a plain job's line laid out straight into the
   * stream by a reused writer, as a take stream now writes one. This is the layout alone, not a
   * delivery: in the server at 500 jobs/s, a delivery's encoding allocated about 1,100 bytes more
   * per job while each made a generator and a writer of its own.
   */
  private static final long NO_GENERATOR_LINE_BUDGET = 24;
  /**
   * 508 bytes when set: the write batches and index changes of an enqueue and a completion;
   * 1,607 while each commit grew a new batch builder and each record its own writer, 2,557
   * before the in-memory index and the array-backed record writer.
   */
  private static final long STORE_COMMIT_BUDGET = 760;
  /**
   * 44 bytes when set (issue 17, session 22): each id parsed from the body's bytes where it
   * stands, and the request's arrays; 127 while each id was made a string first, and the engine
   * parsed that string.
   */
  private static final long READ_ACK_BUDGET = 66;
  /**
   * 846 bytes when set (issue 17, session 23): the job, its enqueue's record and answer, the
   * snapshot each delivery hands its stream, the dispatch's map entries, the completion's
   * deletion and departure; and about 6 of the benchmark's own, its acknowledgements' arrays.
   */
  private static final long ENGINE_BUDGET = 1_270;
  /**
   * 88 bytes when set (issue 17, session 26), per turn: the turn's record of its writes; 274
   * while every turn also made lists and iterators for its empty due work and changed counts.
   */
  private static final long IDLE_TURN_BUDGET = 130;
  private final WireBenchmark wire = new WireBenchmark();

  private static long bytesPerJob(Runnable round) {
    return bytesPerJob(() -> { }, round);
  }

  /** Bytes a round allocates per job, not counting what {@code setUp} allocates before it. */
  private static long bytesPerJob(Runnable setUp, Runnable round) {
    return AllocationMeter.bytesPerUnit(HotPathJobs.JOBS, setUp, round);
  }

  @Test
  void readingABulkEnqueue() {
    long perJob = bytesPerJob(wire::readBulkEnqueue);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(READ_BULK_BUDGET);
  }

  @Test
  void readingBulkAcknowledgements() {
    long perJob = bytesPerJob(wire::readBulkAcks);
    assertThat(perJob).as("bytes allocated per acknowledged id")
        .isLessThanOrEqualTo(READ_ACK_BUDGET);
  }

  @Test
  void writingTheBulkAnswer() {
    long perJob = bytesPerJob(wire::writeBulkAnswer);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(BULK_ANSWER_BUDGET);
  }

  /**
   * A job's enqueue and completion through the store's commit path: its write batches, the
   * in-memory index's changes, the record encoding. The batches' mutations are made before the
   * count starts.
   */
  @Test
  void committingAnEnqueueAndACompletion() throws Exception {
    StoreBenchmark store = new StoreBenchmark();
    store.open();
    try {
      long perJob = bytesPerJob(store::nextJobs, store::enqueueAndComplete);
      assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(STORE_COMMIT_BUDGET);
    } finally {
      store.close();
    }
  }

  /**
   * A job's enqueue, delivery and acknowledgement through the engine alone. The enqueue requests
   * are made before the count starts.
   */
  @Test
  void enqueueingAndDrainingInTheEngine() {
    EngineBenchmark engine = new EngineBenchmark();
    engine.open();
    long perJob = bytesPerJob(engine::nextJobs, engine::enqueueAndDrain);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(ENGINE_BUDGET);
  }

  /** An engine turn with nothing to do, four streams open; per turn, not per job. */
  @Test
  void anIdleEngineTurn() {
    IdleTurnBenchmark engine = new IdleTurnBenchmark();
    engine.open();
    long perTurn = bytesPerJob(() -> {
      for (int i = 0; i < HotPathJobs.JOBS; i++) {
        engine.idleTurn();
      }
    });
    assertThat(perTurn).as("bytes allocated per idle turn").isLessThanOrEqualTo(IDLE_TURN_BUDGET);
  }

  @Test
  void writingTakeStreamLines() {
    long perJob = bytesPerJob(wire::writeTakeStreamLines);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(STREAM_LINE_BUDGET);
  }

  @Test
  void writingLinesWithoutGenerator() {
    long perJob = bytesPerJob(wire::writeLinesWithoutGenerator);
    assertThat(perJob).as("bytes allocated per job").isLessThanOrEqualTo(NO_GENERATOR_LINE_BUDGET);
  }

}
