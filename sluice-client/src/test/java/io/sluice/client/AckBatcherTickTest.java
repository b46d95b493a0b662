package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * While the worker holds jobs, one idle ack sender looks for acks every max delay, so the first
 * ack of each batch wakes nobody; a worker holding nothing has both senders wait untimed, using
 * no CPU.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckBatcherTickTest {
  private static final long MAX_DELAY_MS = 5;

  @Test
  void oneSenderTicksWhileJobsAreHeldAndNoneWhenTheWorkerIsIdle() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    try (FakeHttpServer server = FakeHttpServer.responding(request -> {
      bodies.add(request.bodyText());
      return "HTTP/1.1 204 No Content\r\n\r\n";
    })) {
      SluiceClient client = SluiceClient.builder(server.url())
          .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).build();
      AtomicInteger held = new AtomicInteger();
      String name = "tick-acks-" + System.nanoTime();
      AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ofMillis(MAX_DELAY_MS), name,
          1000, 8, held::get);
      acks.start();
      try {
        awaitStates(name, "WAITING,WAITING");

        held.set(1); // a long job keeps running: only the delay sends its ack
        acks.add("first", 1_000);
        awaitSent(bodies, "first");
        awaitStates(name, "TIMED_WAITING,WAITING");

        // The ticking sender finds the next batch's first ack by itself, within the delay.
        long added = System.nanoTime();
        acks.add("second", 1_000);
        awaitSent(bodies, "second");
        assertThat(System.nanoTime() - added).isLessThan(TimeUnit.SECONDS.toNanos(2));

        held.set(0);
        awaitStates(name, "WAITING,WAITING");
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  @Test
  void withNoDelayNoSenderTicks() throws Exception {
    try (FakeHttpServer server = FakeHttpServer.responding(request -> "HTTP/1.1 204 No Content\r\n\r\n")) {
      SluiceClient client = SluiceClient.builder(server.url())
          .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(5)).build();
      String name = "no-delay-acks-" + System.nanoTime();
      AckBatcher acks = new AckBatcher(client.jobs(), 100, Duration.ZERO, name, 1000, 8, () -> 1);
      acks.start();
      try {
        // A timeout of zero would return at once, over and over: both wait untimed instead.
        awaitStates(name, "WAITING,WAITING");
      } finally {
        acks.close(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  private static void awaitSent(List<String> bodies, String id) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (bodies.stream().noneMatch(body -> body.contains("\"" + id + "\""))) {
      assertThat(System.nanoTime()).as("ack of " + id + " sent in time").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /** Waits until the senders' states, sorted, read {@code expected}. */
  private static void awaitStates(String name, String expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    String states = "";
    while (System.nanoTime() < deadline) {
      states = Thread.getAllStackTraces().keySet().stream()
          .filter(thread -> thread.getName().startsWith(name + "-"))
          .map(thread -> thread.getState().name()).sorted()
          .collect(Collectors.joining(","));
      if (states.equals(expected)) {
        return;
      }
      Thread.sleep(1);
    }
    assertThat(states).as("sender threads' states").isEqualTo(expected);
  }
}
