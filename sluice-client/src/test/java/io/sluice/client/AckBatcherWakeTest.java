package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Two handler threads finishing at the same instant must still start the max-delay clock. Found
 * in review: when the first id's wake-up was decided after the lock had been let go, the other
 * thread's id could get in between, neither woke a sender, and the acks sat until some batching
 * rule fired (here: never, a job stays held) instead of going after 5 ms.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckBatcherWakeTest {
  private static final int ROUNDS = 600;

  /**
   * With a job held a sender looks every max delay by itself (see AckBatcherTickTest); with none
   * held the first ack must wake one: both must keep the delay.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 0})
  void acksAddedByTwoThreadsAtOnceStillGoWithinTheMaxDelay(int jobsHeld) throws Exception {
    try (FakeHttpServer server =
        FakeHttpServer.responding(request -> "HTTP/1.1 204 No Content\r\n\r\n")) {
      SluiceClient client = SluiceClient.builder(server.url())
          .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).build();
      // The take stream never reports its burst done: only the delay sends.
      AtomicInteger held = new AtomicInteger(jobsHeld);
      AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ofMillis(5), "wake-acks",
          1000, 8, held::get);
      acks.start();
      CyclicBarrier go = new CyclicBarrier(3);
      AtomicInteger round = new AtomicInteger();
      Runnable handler = () -> {
        try {
          while (true) {
            go.await();
            int r = round.get();
            if (r < 0) {
              return;
            }
            acks.add(Thread.currentThread().getName() + "-" + r, 1_000);
          }
        } catch (Exception e) {
          // the test is over
        }
      };
      Thread a = new Thread(handler, "a");
      Thread b = new Thread(handler, "b");
      a.start();
      b.start();
      String stalled = null;
      try {
        for (int r = 0; r < ROUNDS && stalled == null; r++) {
          round.set(r);
          go.await(5, TimeUnit.SECONDS);
          Set<String> unsent = new HashSet<>(Set.of("\"a-" + r + "\"", "\"b-" + r + "\""));
          long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
          while (!unsent.isEmpty() && System.nanoTime() < until) {
            try {
              unsent.removeIf(server.takeRequest(
                  Duration.ofNanos(until - System.nanoTime())).bodyText()::contains);
            } catch (AssertionError noRequestInTime) {
              break;
            }
          }
          if (!unsent.isEmpty()) {
            stalled = "round " + r + ": " + unsent + " not sent within 1 s";
          }
          Thread.sleep(2); // the senders go back to waiting for a first ack
        }
      } finally {
        round.set(-1);
        a.interrupt();
        b.interrupt();
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
      assertThat(stalled).as("acks waiting past the 5 ms max delay").isNull();
    }
  }
}
