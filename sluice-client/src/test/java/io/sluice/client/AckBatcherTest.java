package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Closing the ack batcher: a flush that keeps trying until its deadline, and never past it. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckBatcherTest {

  private static AckBatcher batcher(FakeHttpServer server, Duration requestTimeout) {
    SluiceClient client = SluiceClient.builder(server.url())
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(requestTimeout).build();
    // Batches of 100 with a long delay: nothing goes out before close flushes it.
    AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ofSeconds(30), "test-acks",
        1000, () -> 1);
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
      acks.add("job-1");
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
      acks.add("job-1");
      long start = System.nanoTime();
      acks.close(start + TimeUnit.MILLISECONDS.toNanos(300));
      Duration took = Duration.ofNanos(System.nanoTime() - start);

      assertThat(received.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(took).as("close honours its deadline, not the 20 s request timeout")
          .isLessThan(Duration.ofMillis(300 + 1_500));
    }
  }
}
