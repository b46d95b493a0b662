package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The answer to a batch written by a handler thread is read by whoever writes the next batch on
 * that connection, so a steady flow of batches wakes no ack sender; an answer nobody else reads
 * is read by its sender, and an ack whose answer says it failed is sent again either way.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckBatcherAnswerTest {
  private static final int BATCHES = 300;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  @Test
  void aSteadyFlowOfBatchesWakesNoSender() throws Exception {
    // With no answer wait, each batch wakes the sender to read its answer (two signals may come
    // before one wake-up): the measure works.
    assertThat(senderWaitsOverSteadyFlow(Duration.ZERO)).isGreaterThan(BATCHES / 3);
    // Left for the next writer, the answers cost the senders hardly a wait at all.
    assertThat(senderWaitsOverSteadyFlow(Duration.ofSeconds(2))).isLessThan(30);
  }

  /** How many times the senders waited while {@link #BATCHES} batches were written one by one. */
  private static long senderWaitsOverSteadyFlow(Duration answerWaitCap) throws Exception {
    try (FakeHttpServer server =
        FakeHttpServer.responding(request -> "HTTP/1.1 204 No Content\r\n\r\n")) {
      String name = "steady-acks-" + System.nanoTime();
      // Batches of one: each add is due at once and written by this thread.
      AckBatcher acks = new AckBatcher(client(server).jobs(), 1, Duration.ofSeconds(10),
          answerWaitCap, name, 1000, 8, () -> 1);
      acks.start();
      try {
        connect(acks, server);
        long before = waits(name);
        for (int i = 0; i < BATCHES; i++) {
          acks.add("job-" + i, 0);
          assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-" + i);
          // The next batch finds an idle sender on an open connection to write on.
          Await.until(acks::readyToWrite, "an idle sender on an open connection");
        }
        return waits(name) - before;
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  @Test
  void anAnswerNobodyElseReadsIsReadByItsSenderAndAFailureSentAgain() throws Exception {
    try (FakeHttpServer server = failingTheFirstAckOf("job-1")) {
      AckBatcher acks = new AckBatcher(client(server).jobs(), 100, Duration.ofMillis(5),
          "unread-acks", 1000, 8, () -> 0);
      acks.start();
      try {
        connect(acks, server);
        acks.add("job-1", 0);
        acks.streamDrained(); // the burst is over: this thread writes the batch
        assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-1");
        // Nothing else is written: only the sender can read the 500 and send the ack again.
        assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-1");
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  @Test
  void aFailedAnswerReadByTheNextWriterIsSentAgainBeforeTheNextBatch() throws Exception {
    try (FakeHttpServer server = failingTheFirstAckOf("job-1")) {
      // Senders that would wait 2 s before reading an answer: the next writer reads it first.
      AckBatcher acks = new AckBatcher(client(server).jobs(), 1, Duration.ofSeconds(10),
          Duration.ofSeconds(2), "failed-acks", 1000, 8, () -> 1);
      acks.start();
      try {
        connect(acks, server); // one sender's connection: both batches go on it
        acks.add("job-1", 0);
        assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-1");
        Await.until(acks::readyToWrite, "an idle sender on an open connection");
        acks.add("job-2", 0); // reads job-1's 500 before writing
        List<String> bodies = new ArrayList<>();
        bodies.add(server.takeRequest(Duration.ofSeconds(5)).bodyText());
        bodies.add(server.takeRequest(Duration.ofSeconds(5)).bodyText());
        assertThat(bodies).satisfiesExactly(
            body -> assertThat(body).contains("job-1").doesNotContain("job-2"),
            body -> assertThat(body).contains("job-2"));
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  @Test
  void aWriterDoesNotWaitForAnAnswerStillOnItsWay() throws Exception {
    try (FakeHttpServer server = FakeHttpServer.responding(request -> {
      if (request.bodyText().contains("\"job-1\"")) {
        try {
          Thread.sleep(1_000); // the answer to job-1 is slow to come
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return "HTTP/1.1 204 No Content\r\n\r\n";
    })) {
      AckBatcher acks = new AckBatcher(client(server).jobs(), 1, Duration.ofSeconds(10),
          Duration.ofSeconds(2), "slow-answer-acks", 1000, 8, () -> 1);
      acks.start();
      try {
        connect(acks, server); // one sender's connection
        acks.add("job-1", 0);
        assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-1");
        long start = System.nanoTime();
        acks.add("job-2", 0); // job-1's answer has not come: left to a sender, not read here
        long took = System.nanoTime() - start;
        assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("job-2");
        assertThat(Duration.ofNanos(took)).as("the handler's add").isLessThan(Duration.ofMillis(500));
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  /**
   * Sends a first batch, which a sender writes, connecting: the tests' batches find it idle.
   * The tests then start mid-burst.
   */
  private static void connect(AckBatcher acks, FakeHttpServer server) throws Exception {
    acks.add("warm-up", 0);
    acks.streamDrained();
    assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("warm-up");
    Await.until(acks::readyToWrite, "an idle sender on an open connection");
    acks.jobArrived();
  }

  /** A server answering 500 to the first ack of {@code id}, and 204 to every other. */
  private static FakeHttpServer failingTheFirstAckOf(String id) {
    AtomicBoolean failed = new AtomicBoolean();
    return FakeHttpServer.responding(request ->
        request.bodyText().contains("\"" + id + "\"") && failed.compareAndSet(false, true)
            ? "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
            : "HTTP/1.1 204 No Content\r\n\r\n");
  }

  private static SluiceClient client(FakeHttpServer server) {
    return SluiceClient.builder(server.url())
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).build();
  }

  /** The times the named batcher's sender threads have waited (parked) so far. */
  private static long waits(String name) {
    long total = 0;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().startsWith(name + "-")) {
        ThreadInfo info = THREADS.getThreadInfo(thread.getId());
        total += info.getWaitedCount();
      }
    }
    return total;
  }
}
