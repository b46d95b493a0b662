package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When the ack batcher sends: one request for a window of quick jobs, at once for a finished
 * burst or for slow jobs; and closing it: a flush that keeps trying until its deadline, and never
 * past it.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckBatcherTest {

  private static AckBatcher batcher(FakeHttpServer server, Duration requestTimeout) {
    SluiceClient client = SluiceClient.builder(server.url())
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(requestTimeout).build();
    // Batches of 100 with a long delay: nothing goes out before close flushes it.
    AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ofSeconds(30), "test-acks",
        1000, 1, () -> 1);
    acks.start();
    return acks;
  }

  @Test
  void aFlushThatFailsOnceIsRetriedBeforeTheDeadline() throws Exception {
    AtomicInteger connections = new AtomicInteger();
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      FakeHttpServer.Request request = conn.readRequest();
      if (connections.incrementAndGet() == 1) {
        return; // the first connection drops without an answer
      }
      while (request != null) {
        conn.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        request = conn.readRequest();
      }
    })) {
      AckBatcher acks = batcher(server, Duration.ofSeconds(5));
      acks.add("job-1", 0);
      acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));

      assertThat(server.requests()).hasSize(2);
      assertThat(new String(server.requests().get(1).body())).contains("job-1");
    }
  }

  @Test
  void closeReturnsAtItsDeadlineWhenTheServerNeverAnswers() throws Exception {
    CountDownLatch received = new CountDownLatch(1);
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      received.countDown();
      conn.awaitClientClose(Duration.ofSeconds(20)); // and never answers
    })) {
      AckBatcher acks = batcher(server, Duration.ofSeconds(20));
      acks.add("job-1", 0);
      long start = System.nanoTime();
      acks.close(start + TimeUnit.MILLISECONDS.toNanos(300));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(received.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(took).as("close honours its deadline, not the 20 s request timeout")
          .isLessThan(Duration.ofMillis(300 + 1_500));
    }
  }

  /**
   * A batcher whose only timer is far off, so that only the batching rules send, with a sender
   * already connected and idle: a batch the rules make due is then written by the very call
   * that made it due, so a batch sent too early is always seen first.
   */
  private static AckBatcher rulesOnly(FakeHttpServer server, int window, int threads,
      AtomicInteger held) throws InterruptedException {
    SluiceClient client = SluiceClient.builder(server.url())
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).build();
    AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ofSeconds(30), "test-acks",
        window, threads, held::get);
    acks.start();
    int heldBefore = held.getAndSet(0);
    acks.streamDrained();
    acks.add("warm-up", 1_000); // a lone job's ack after its burst: connects a sender
    assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("warm-up");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!acks.readyToWrite()) {
      assertThat(System.nanoTime()).as("a sender back to idle").isLessThan(until);
      Thread.onSpinWait();
    }
    acks.jobArrived(); // the tests start mid-burst
    held.set(heldBefore);
    return acks;
  }

  private static FakeHttpServer answeringEveryAck() {
    return FakeHttpServer.responding(request -> "HTTP/1.1 204 No Content\r\n\r\n");
  }

  private static long millis(long ms) {
    return TimeUnit.MILLISECONDS.toNanos(ms);
  }

  @Test
  void aWindowOfQuickJobsIsAcknowledgedInOneRequestWhenItsLastJobIsDone() throws Exception {
    try (FakeHttpServer server = answeringEveryAck()) {
      AtomicInteger held = new AtomicInteger(4);
      AckBatcher acks = rulesOnly(server, 4, 1, held);
      for (String id : new String[] {"a", "b", "c", "d"}) {
        held.decrementAndGet(); // settled, then acknowledged, as the job runner does
        acks.add(id, 1_000);
      }

      FakeHttpServer.Request first = server.takeRequest(Duration.ofSeconds(5));
      assertThat(first.bodyText()).contains("\"a\"", "\"b\"", "\"c\"", "\"d\"");
      acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      assertThat(server.requests()).as("the warm-up and the window").hasSize(2);
    }
  }

  @Test
  void slowJobsDoNotWaitForTheJobStillRunningOnceTheWindowIsDone() throws Exception {
    try (FakeHttpServer server = answeringEveryAck()) {
      AtomicInteger held = new AtomicInteger(1); // one slow job keeps running throughout
      AckBatcher acks = rulesOnly(server, 4, 2, held);
      acks.add("a", millis(100));
      acks.add("b", millis(100));
      acks.add("c", millis(100)); // with the running one, the server's window is now used up

      FakeHttpServer.Request first = server.takeRequest(Duration.ofSeconds(5));
      assertThat(first.bodyText()).contains("\"a\"", "\"b\"", "\"c\"");
      acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
  }

  @Test
  void aFinishedBurstIsSentAtOnceButNotWhileMoreOfItIsStillArriving() throws Exception {
    try (FakeHttpServer server = answeringEveryAck()) {
      AtomicInteger held = new AtomicInteger(0);
      AckBatcher acks = rulesOnly(server, 16, 1, held);
      acks.jobArrived();
      acks.add("a", 1_000); // nothing in hand, but the stream has more to read
      acks.jobArrived();
      acks.add("b", 1_000);
      acks.streamDrained(); // the burst is over: nothing more is about to join

      FakeHttpServer.Request first = server.takeRequest(Duration.ofSeconds(5));
      assertThat(first.bodyText()).contains("\"a\"", "\"b\"");

      acks.add("c", 1_000); // the stream is still waiting: a lone job's ack goes at once
      assertThat(server.takeRequest(Duration.ofSeconds(5)).bodyText()).contains("\"c\"")
          .doesNotContain("\"a\"");
      acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      assertThat(server.requests()).as("the warm-up and two batches").hasSize(3);
    }
  }
}
