package io.sluice.client;

import static io.sluice.client.FakeNodes.deadUrl;
import static io.sluice.client.FakeNodes.job;
import static io.sluice.client.FakeNodes.lines;
import static io.sluice.client.FakeNodes.noLeader;
import static io.sluice.client.FakeNodes.ok;
import static io.sluice.client.FakeNodes.redirect;
import static io.sluice.client.FakeNodes.refuseStream;
import static io.sluice.client.FakeNodes.response;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster as the client's requests meet it, played by fake nodes: followers that redirect
 * (307) or name the leader (503), an election (503 without a leader), a redirect loop, a leader
 * that dies, and seed URLs of which the first is down.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LeaderFollowingTest {
  @Test
  void anEnqueueRedirectedByAFollowerArrivesAtTheLeaderAndLaterRequestsGoStraightThere() {
    try (FakeHttpServer leader = FakeHttpServer.responding(request -> ok(job("j1")));
        FakeHttpServer follower =
            FakeHttpServer.responding(request -> redirect(leader.url(), request))) {
      SluiceClient client = SluiceClient.builder(follower.url()).build();

      Job job = client.jobs().enqueue(
          EnqueueRequest.builder("q", "t", Map.of("to", "ada@example.com")).build());

      assertThat(job.id()).isEqualTo("j1");
      FakeHttpServer.Request refused = follower.requests().get(0);
      FakeHttpServer.Request served = leader.requests().get(0);
      assertThat(served.line()).isEqualTo(refused.line()).isEqualTo("POST /jobs HTTP/1.1");
      assertThat(served.bodyText()).isEqualTo(refused.bodyText()).contains("ada@example.com");
      assertThat(served.header("Content-Type")).isEqualTo(refused.header("Content-Type"))
          .isEqualTo("application/json");
      assertThat(served.header("Accept")).isEqualTo(refused.header("Accept"));
      assertThat(client.currentUrl()).isEqualTo(leader.url());

      client.jobs().get("j1");
      client.jobs().enqueue(EnqueueRequest.builder("q", "t", Map.of()).build());

      assertThat(lines(follower)).as("no second redirect").hasSize(1);
      assertThat(lines(leader)).containsExactly("POST /jobs HTTP/1.1",
          "GET /jobs/j1 HTTP/1.1", "POST /jobs HTTP/1.1");
    }
  }

  @Test
  void aRedirectLoopEndsWithAClearExceptionAfterTheHopLimit() {
    AtomicReference<String> otherUrl = new AtomicReference<>();
    try (FakeHttpServer a = FakeHttpServer.responding(r -> redirect(otherUrl.get(), r));
        FakeHttpServer b = FakeHttpServer.responding(r -> redirect(a.url(), r))) {
      otherUrl.set(b.url());
      SluiceClient client = SluiceClient.builder(a.url()).build();

      assertThatThrownBy(() -> client.jobs().enqueue(EnqueueRequest.builder("q", "t", 1).build()))
          .isInstanceOfSatisfying(SluiceException.class, e -> {
            assertThat(e.status()).isEqualTo(307);
            assertThat(e.getMessage()).contains("POST /jobs")
                .contains("gave up after " + HttpTransport.MAX_HOPS + " redirects");
          });
      assertThat(a.requests().size() + b.requests().size())
          .as("the first request and " + HttpTransport.MAX_HOPS + " redirects")
          .isEqualTo(HttpTransport.MAX_HOPS + 1);
    }
  }

  @Test
  void aRedirectToAnotherSchemeIsNotFollowed() {
    try (FakeHttpServer follower = FakeHttpServer.responding(r -> response(307,
        "Location: ftp://127.0.0.1/jobs\r\n", "{}"))) {
      SluiceClient client = SluiceClient.builder(follower.url()).build();

      assertThatThrownBy(client::health).isInstanceOf(SluiceException.class)
          .hasMessageContaining("only http and https");
      assertThat(client.currentUrl()).isEqualTo(follower.url());
    }
  }

  @Test
  void duringAnElectionARequestIsSentAgainAfterRetryAfter() {
    AtomicInteger served = new AtomicInteger();
    try (FakeHttpServer node = FakeHttpServer.responding(request -> served.getAndIncrement() == 0
        ? noLeader()
        : ok(job("j1")))) {
      SluiceClient client = SluiceClient.builder(node.url()).build();
      long start = System.nanoTime();

      Job job = client.jobs().enqueue(EnqueueRequest.builder("q", "t", Map.of("k", 7)).build());

      assertThat(job.id()).isEqualTo("j1");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
          Duration.ofSeconds(1));
      List<FakeHttpServer.Request> requests = node.requests();
      assertThat(requests).hasSize(2);
      assertThat(requests.get(1).line()).isEqualTo(requests.get(0).line());
      assertThat(requests.get(1).bodyText()).isEqualTo(requests.get(0).bodyText())
          .contains("\"k\":7");
    }
  }

  @Test
  void pastTheUnavailableTimeoutA503IsThrownWithItsRetryAfter() {
    try (FakeHttpServer node = FakeHttpServer.responding(
        request -> noLeader())) {
      SluiceClient client = SluiceClient.builder(node.url())
          .unavailableTimeout(Duration.ZERO).build();

      assertThatThrownBy(client::health).isInstanceOfSatisfying(UnavailableException.class, e -> {
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.serverMessage()).isEqualTo("no leader is elected yet; retry shortly");
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
        assertThat(e.leader()).isEmpty();
      });
      assertThat(node.requests()).hasSize(1);
    }
  }

  @Test
  void a503NamingTheLeaderSendsTheRequestThereWithoutWaiting() {
    try (FakeHttpServer leader = FakeHttpServer.responding(request -> ok(job("j1")));
        FakeHttpServer follower = FakeHttpServer.responding(r -> refuseStream(leader.url()))) {
      // With no time to wait, only going to the leader at once can succeed.
      SluiceClient client = SluiceClient.builder(follower.url())
          .unavailableTimeout(Duration.ZERO).build();

      assertThat(client.jobs().get("j1").id()).isEqualTo("j1");

      assertThat(lines(leader)).containsExactly("GET /jobs/j1 HTTP/1.1");
      assertThat(client.currentUrl()).isEqualTo(leader.url());
    }
  }

  @Test
  void whenTheLeaderDiesTheClientAsksItsSeedAgainAndFollowsTheNewLeader() {
    try (FakeHttpServer newLeader = FakeHttpServer.responding(request -> ok(job("j1")))) {
      AtomicReference<String> leaderUrl = new AtomicReference<>();
      FakeHttpServer oldLeader = FakeHttpServer.responding(request -> ok(job("j1")));
      try (FakeHttpServer follower =
          FakeHttpServer.responding(r -> redirect(leaderUrl.get(), r))) {
        leaderUrl.set(oldLeader.url());
        SluiceClient client = SluiceClient.builder(follower.url()).build();
        client.jobs().get("j1");
        assertThat(lines(oldLeader)).containsExactly("GET /jobs/j1 HTTP/1.1");

        oldLeader.close(); // its port now refuses connections
        leaderUrl.set(newLeader.url());
        client.jobs().get("j1");

        assertThat(lines(newLeader)).containsExactly("GET /jobs/j1 HTTP/1.1");
        assertThat(lines(follower)).hasSize(2);
        assertThat(client.currentUrl()).isEqualTo(newLeader.url());
      } finally {
        oldLeader.close();
      }
    }
  }

  /**
   * Right after a leader dies its followers still name it until their election timeout: the
   * request waits that out, as it waits out the election, instead of spending its redirects on
   * the dead leader and failing within milliseconds.
   */
  @Test
  void aFollowerThatStillNamesTheDeadLeaderIsAskedAgainUntilItNamesTheNewOne() {
    try (FakeHttpServer newLeader = FakeHttpServer.responding(request -> ok(job("j2")))) {
      AtomicReference<String> leaderUrl = new AtomicReference<>();
      AtomicInteger staleAnswers = new AtomicInteger();
      FakeHttpServer oldLeader = FakeHttpServer.responding(request -> ok(job("j1")));
      try (FakeHttpServer follower = FakeHttpServer.responding(r -> {
        if (leaderUrl.get().equals(oldLeader.url())
            && staleAnswers.incrementAndGet() > HttpTransport.MAX_HOPS + 2) {
          leaderUrl.set(newLeader.url()); // the follower has noticed, and the election is over
        }
        return redirect(leaderUrl.get(), r);
      })) {
        leaderUrl.set(oldLeader.url());
        SluiceClient client = SluiceClient.builder(List.of(follower.url(), oldLeader.url()))
            .build();
        client.jobs().get("j1");
        assertThat(client.currentUrl()).isEqualTo(oldLeader.url());
        staleAnswers.set(0);
        oldLeader.close(); // its port now refuses connections

        Job job = client.jobs().enqueue(EnqueueRequest.builder("q", "t", Map.of("n", 1)).build());

        assertThat(job.id()).isEqualTo("j2");
        assertThat(lines(newLeader)).containsExactly("POST /jobs HTTP/1.1");
        assertThat(lines(follower)).as("the first redirect, then one per stale answer")
            .hasSize(1 + HttpTransport.MAX_HOPS + 3);
        assertThat(client.currentUrl()).isEqualTo(newLeader.url());
      } finally {
        oldLeader.close();
      }
    }
  }

  /**
   * A node taking the lead switches its listeners, and for a moment refuses connections on the
   * port the followers already send clients to: it is tried again after a pause, not given up on
   * for the rest of the request.
   */
  @Test
  void aNewLeaderThatRefusedOneConnectionIsTriedAgainWhenNamedAfterAPause() throws Exception {
    String leaderUrl = deadUrl();
    int leaderPort = Integer.parseInt(leaderUrl.substring(leaderUrl.lastIndexOf(':') + 1));
    AtomicReference<FakeHttpServer> leader = new AtomicReference<>();
    AtomicInteger asked = new AtomicInteger();
    // The leader's port is closed when the follower first names it, and open from its second
    // answer on, which the client gets before it tries the leader again.
    try (FakeHttpServer follower = FakeHttpServer.responding(r -> {
      if (asked.incrementAndGet() == 2) {
        leader.set(FakeHttpServer.respondingOn(leaderPort, request -> ok(job("j1"))));
      }
      return redirect(leaderUrl, r);
    })) {
      SluiceClient client = SluiceClient.builder(follower.url())
          .unavailableTimeout(Duration.ofSeconds(3)).build();
      try {
        long start = System.nanoTime();

        Job job = client.jobs().enqueue(EnqueueRequest.builder("q", "t", 1).build());

        assertThat(job.id()).isEqualTo("j1");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .isGreaterThanOrEqualTo(Duration.ofMillis(HttpTransport.STALE_LEADER_PAUSE_MS));
        assertThat(lines(follower)).hasSize(3);
        assertThat(lines(leader.get())).containsExactly("POST /jobs HTTP/1.1");
        assertThat(client.currentUrl()).isEqualTo(leaderUrl);
      } finally {
        if (leader.get() != null) {
          leader.get().close();
        }
      }
    }
  }

  @Test
  void aFollowerNamingADeadLeaderPastTheUnavailableTimeoutIsAConnectionFailure()
      throws Exception {
    String dead = deadUrl();
    try (FakeHttpServer follower = FakeHttpServer.responding(r -> redirect(dead, r))) {
      SluiceClient client = SluiceClient.builder(follower.url())
          .unavailableTimeout(Duration.ofMillis(700)).build();
      long start = System.nanoTime();

      assertThatThrownBy(() -> client.jobs().enqueue(EnqueueRequest.builder("q", "t", 1).build()))
          .isInstanceOfSatisfying(ConnectionException.class, e -> assertThat(e.getMessage())
              .contains("POST /jobs", "the leader " + dead, "refuses connections"));

      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(
          HttpTransport.STALE_LEADER_PAUSE_MS)).isLessThan(Duration.ofSeconds(5));
      // The dead leader is tried again after each pause (the follower may be right by then),
      // and the follower asked again: at least once more after a pause, never in a tight loop.
      assertThat(lines(follower).size()).isBetween(3, 8);
      assertThat(client.currentUrl()).isEqualTo(follower.url());
    }
  }

  @Test
  void aClientWhoseFirstSeedIsDownUsesTheNextOne() throws Exception {
    try (FakeHttpServer node = FakeHttpServer.responding(request -> ok(job("j1")))) {
      String dead = deadUrl();
      SluiceClient client = SluiceClient.builder(List.of(dead, node.url())).build();

      Job job = client.jobs().enqueue(EnqueueRequest.builder("q", "t", 1).build());

      assertThat(job.id()).isEqualTo("j1");
      assertThat(lines(node)).containsExactly("POST /jobs HTTP/1.1");
      assertThat(client.currentUrl()).isEqualTo(node.url());
    }
  }

  @Test
  void anHttpsFollowerSendsTheClientToAnHttpsLeaderWithTheSameTrust() {
    TestPki.Issued ca = TestPki.authority("cluster-ca");
    SSLContext tls = TestPki.serverContext(TestPki.server(ca), ca, ca);
    try (FakeHttpServer leader = FakeHttpServer.startTls(tls, conn -> {
      while (conn.readRequest() != null) {
        conn.write(ok(job("j1")));
      }
    }); FakeHttpServer follower = FakeHttpServer.startTls(tls, conn -> {
      FakeHttpServer.Request request;
      while ((request = conn.readRequest()) != null) {
        conn.write(redirect(leader.url(), request));
      }
    })) {
      SluiceClient client = SluiceClient.builder(follower.url()).sslContext(tls).build();

      assertThat(client.jobs().get("j1").id()).isEqualTo("j1");
      assertThat(lines(leader)).containsExactly("GET /jobs/j1 HTTP/1.1");
      assertThat(leader.url()).startsWith("https://");
    }
  }

  @Test
  void aRedirectFromHttpsToPlainHttpIsRefused() {
    TestPki.Issued ca = TestPki.authority("cluster-ca");
    SSLContext tls = TestPki.serverContext(TestPki.server(ca), ca, ca);
    try (FakeHttpServer plain = FakeHttpServer.responding(request -> ok(job("j1")));
        FakeHttpServer follower = FakeHttpServer.startTls(tls, conn -> {
          FakeHttpServer.Request request;
          while ((request = conn.readRequest()) != null) {
            conn.write(redirect(plain.url(), request));
          }
        })) {
      SluiceClient client = SluiceClient.builder(follower.url()).sslContext(tls).build();

      assertThatThrownBy(() -> client.jobs().get("j1")).isInstanceOf(SluiceException.class)
          .hasMessageContaining("unencrypted");
      assertThat(plain.requests()).isEmpty();
    }
  }
}
