package io.sluice.client;

import static io.sluice.client.FakeNodes.deadUrl;
import static io.sluice.client.FakeNodes.lines;
import static io.sluice.client.FakeNodes.noLeader;
import static io.sluice.client.FakeNodes.ok;
import static io.sluice.client.FakeNodes.redirect;
import static io.sluice.client.FakeNodes.refuseStream;
import static io.sluice.client.FakeNodes.stream;
import static io.sluice.client.FakeNodes.streamingLeader;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker's take stream and acks in a cluster, played by fake nodes: a follower refusing the
 * stream and naming the leader, an election, a first seed that is down, and a redirected ack.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WorkerLeaderFollowingTest {
  private static Worker.Builder worker(SluiceClient client, Duration reconnect) {
    return Worker.builder(client).queues("q").concurrency(1).workerId("w1")
        .reconnectDelay(reconnect, reconnect).shutdownTimeout(Duration.ofSeconds(5));
  }

  @Test
  void anAckRedirectedByAFollowerIsSentToTheLeaderAndTheNextOneStraightThere() {
    try (FakeHttpServer leader = FakeHttpServer.responding(request -> ok("{}"));
        FakeHttpServer follower =
            FakeHttpServer.responding(request -> redirect(leader.url(), request))) {
      SluiceClient client = SluiceClient.builder(follower.url()).build();
      try (AckChannel channel = client.jobs().ackChannel()) {
        assertThat(channel.ackAll(List.of("a", "b"))).isEmpty();
        assertThat(channel.ackAll(List.of("c"))).isEmpty();
      }

      assertThat(lines(follower)).containsExactly("POST /jobs/success HTTP/1.1");
      assertThat(lines(leader)).containsExactly("POST /jobs/success HTTP/1.1",
          "POST /jobs/success HTTP/1.1");
      assertThat(leader.requests().get(0).bodyText())
          .isEqualTo(follower.requests().get(0).bodyText()).contains("\"a\"", "\"b\"");
      assertThat(leader.requests().get(1).bodyText()).contains("\"c\"");
    }
  }

  @Test
  void aWorkerRefusedByAFollowerTakesFromTheLeaderAtOnceAndAcksThere() {
    List<String> handled = new CopyOnWriteArrayList<>();
    try (FakeHttpServer leader = streamingLeader("j1");
        FakeHttpServer follower = FakeHttpServer.responding(request ->
            request.line().startsWith("GET /jobs/take")
                ? refuseStream(leader.url())
                : redirect(leader.url(), request))) {
      SluiceClient client = SluiceClient.builder(follower.url()).build();
      // A backoff of 30 s would outlast the wait below: only a reconnection at once passes.
      try (Worker worker = worker(client, Duration.ofSeconds(30)).build()) {
        worker.handle("t", Map.class, (payload, job) -> handled.add(job.id()));
        worker.start();

        Await.until(() -> lines(leader).contains("POST /jobs/success HTTP/1.1"),
            "the ack at the leader");
      }

      assertThat(handled).containsExactly("j1");
      FakeHttpServer.Request refused = follower.requests().get(0);
      FakeHttpServer.Request opened = leader.requests().get(0);
      assertThat(lines(follower)).as("only the refused stream").hasSize(1);
      assertThat(opened.line()).isEqualTo(refused.line())
          .startsWith("GET /jobs/take?queue=q&prefetch=1 ");
      assertThat(opened.header("Worker-Id")).isEqualTo("w1");
      assertThat(leader.requests().get(1).bodyText()).contains("\"j1\"");
    }
  }

  @Test
  void aWorkerRefusedWithoutALeaderOpensItsStreamAfterRetryAfter() {
    AtomicInteger takes = new AtomicInteger();
    List<Long> handledAfterMs = new CopyOnWriteArrayList<>();
    try (FakeHttpServer node = FakeHttpServer.start(conn -> {
      FakeHttpServer.Request request;
      while ((request = conn.readRequest()) != null) {
        if (!request.line().startsWith("GET /jobs/take")) {
          conn.write(ok("{}"));
        } else if (takes.getAndIncrement() == 0) {
          conn.write(noLeader());
        } else {
          stream(conn, "j1");
          return;
        }
      }
    })) {
      SluiceClient client = SluiceClient.builder(node.url()).build();
      long start = System.nanoTime();
      // The backoff would wait 15 to 30 s, longer than the wait below.
      try (Worker worker = worker(client, Duration.ofSeconds(30)).build()) {
        worker.handle("t", Map.class,
            (payload, job) -> handledAfterMs.add((System.nanoTime() - start) / 1_000_000));
        worker.start();

        Await.until(() -> handledAfterMs.size() == 1, "the job from the second stream");
      }

      assertThat(handledAfterMs.get(0)).isGreaterThanOrEqualTo(1_000);
      assertThat(takes.get()).isEqualTo(2);
    }
  }

  @Test
  void aWorkerWhoseFirstSeedRefusesConnectionsTakesFromTheNext() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    try (FakeHttpServer node = streamingLeader("j1")) {
      SluiceClient client = SluiceClient.builder(List.of(deadUrl(), node.url())).build();
      try (Worker worker = worker(client, Duration.ofMillis(20)).build()) {
        worker.handle("t", Map.class, (payload, job) -> handled.add(job.id()));
        worker.start();

        Await.until(() -> handled.size() == 1, "the job from the second seed");
      }

      assertThat(handled).containsExactly("j1");
      assertThat(client.currentUrl()).isEqualTo(node.url());
    }
  }
}
