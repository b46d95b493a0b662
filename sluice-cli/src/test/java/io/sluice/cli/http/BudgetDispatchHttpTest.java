package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Taken;
import io.sluice.engine.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dispatch under budgets over real take streams (BUDGETS.md §3, §5, §6, §7, §10; worked examples
 * E1, E2, E4, E6–E13 of §12), with the time scales compressed (a 60 s rate period becomes 600 ms,
 * a 2 s job 200 ms). Orders and counts are asserted exactly. Tests whose point is when a job is
 * dispatched run on a manual clock ({@link OnAManualClock}) and read the exact instant from the
 * server's own {@code dequeued_at} stamps; the others run on the wall clock with periods long
 * enough that no token drips back during a test. Tests share one server per clock (E13 and the
 * restart and reset tests have their own) and use their own queues and budget keys.
 */
class BudgetDispatchHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final BudgetClient budgets = new BudgetClient(server);

  static long dequeuedAt(JsonNode job) {
    JsonNode stamp = job.get("dequeued_at");
    assertThat(stamp).as("dequeued_at in %s", job).isNotNull();
    return stamp.longValue();
  }

  static List<String> enqueueBound(ServerFixture target, String queue, String key, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(id(target.enqueue(boundJob(queue, key))));
    }
    return ids;
  }

  static String status(ServerFixture target, String jobId) {
    return target.getJob(jobId).get("status").textValue();
  }

  /** Receives {@code count} jobs, acknowledging each as soon as it arrives. */
  static List<JsonNode> receiveAndAck(ServerFixture target, WorkerStream stream, int count) {
    List<JsonNode> received = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      JsonNode job = stream.nextJob();
      received.add(job);
      target.ack(id(job));
    }
    return received;
  }

  static List<String> ids(List<JsonNode> jobs) {
    return jobs.stream().map(ServerFixture::id).toList();
  }

  /** E7: a cheap job does not overtake an unaffordable head of the same budget. */
  @Test
  void e7StrictFifoInsideOneBudget() {
    String x = uniqueName("fifo");
    budgets.define(x, whileInFlight(10));
    String queue = uniqueName("e7");

    try (Taken running = server.takeOne(boundJob(uniqueName("e7-run"), binding(x, 5)))) {
      String h = id(server.enqueue(boundJob(queue, binding(x, 6))));
      String l = id(server.enqueue(boundJob(queue, binding(x, 1))));
      try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
        worker.assertNoJobWithin(Duration.ofMillis(300));
        assertThat(status(server, h)).isEqualTo("ready");
        assertThat(status(server, l)).isEqualTo("ready");

        server.ack(running.id());

        assertThat(id(worker.nextJob())).isEqualTo(h);
        assertThat(id(worker.nextJob())).isEqualTo(l);
        server.ack(h);
        server.ack(l);
      }
    }
  }

  /** E8: a parked multi-budget job holds none of the tokens it could pay. */
  @Test
  void e8AllOrNothing() {
    String x = uniqueName("x");
    String y = uniqueName("y");
    budgets.define(x, whileInFlight(10));
    budgets.define(y, whileInFlight(1));
    String queue = uniqueName("e8");

    try (Taken occupying = server.takeOne(boundJob(uniqueName("e8-y"), y))) {
      String j = id(server.enqueue(
          boundJob(queue, binding(x, 10), binding(y, 1)).put("priority", 10)));
      try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
        worker.assertNoJobWithin(Duration.ofMillis(200));
        assertThat(status(server, j)).isEqualTo("ready");

        String k = id(server.enqueue(boundJob(queue, binding(x, 10)).put("priority", 0)));
        assertThat(id(worker.nextJob())).isEqualTo(k);

        server.ack(k);
        worker.assertNoJobWithin(Duration.ofMillis(200)); // y is still occupied
        assertThat(status(server, j)).isEqualTo("ready");
        server.ack(occupying.id());
        assertThat(id(worker.nextJob())).isEqualTo(j);
        server.ack(j);
      }
    }
  }

  /** E9: narrowing 6 → 1 while 6 run: the debt is paid before any slot is freed. */
  @Test
  void e9ShrinkWhileRunning() {
    String c = uniqueName("shrink");
    String queue = uniqueName("e9");
    budgets.define(c, whileInFlight(6));
    List<String> ids = enqueueBound(server, queue, c, 16);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      List<String> running = ids(worker.nextJobs(6));
      assertThat(running).containsExactlyElementsOf(ids.subList(0, 6));
      worker.assertNoJobWithin(Duration.ofMillis(150));

      assertThat(budgets.patchOk(c, parse("{\"allocation\":1}")).get("allocation").intValue())
          .isEqualTo(1);

      for (int i = 0; i < 5; i++) {
        server.ack(running.get(i));
      }
      worker.assertNoJobWithin(Duration.ofMillis(300));
      assertThat(status(server, ids.get(6))).isEqualTo("ready");

      String last = running.get(5);
      for (int next = 6; next < 9; next++) {
        server.ack(last);
        last = id(worker.nextJob());
        assertThat(last).isEqualTo(ids.get(next));
        worker.assertNoJobWithin(Duration.ofMillis(150));
      }
      server.ack(last);
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(9));
    }
  }

  /**
   * §7 Adopt: 4 running, shrink 4 → 1 (debt 3), then widen 1 → 3 (debt 1): the first
   * completion only pays the debt, every later one frees a slot — 3 run at a time.
   */
  @Test
  void widenAfterShrinkKeepsTheRemainingDebt() {
    String c = uniqueName("debt");
    String queue = uniqueName("debt");
    budgets.define(c, whileInFlight(4));
    List<String> ids = enqueueBound(server, queue, c, 8);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      List<String> running = ids(worker.nextJobs(4));
      assertThat(running).containsExactlyElementsOf(ids.subList(0, 4));
      budgets.patchOk(c, parse("{\"allocation\":1}"));
      budgets.patchOk(c, parse("{\"allocation\":3}"));
      worker.assertNoJobWithin(Duration.ofMillis(150));

      server.ack(running.get(0));
      worker.assertNoJobWithin(Duration.ofMillis(200));

      server.ack(running.get(1));
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(4));
      worker.assertNoJobWithin(Duration.ofMillis(150));
      server.ack(running.get(2));
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(5));
      worker.assertNoJobWithin(Duration.ofMillis(150));
    }
  }

  /** The job a worker disconnects from returns its while_in_flight tokens (§5.5). */
  @Test
  void disconnectReleasesConcurrencyTokens() {
    String m = uniqueName("mutex");
    String queue = uniqueName("disconnect");
    budgets.define(m, whileInFlight(1));
    List<String> ids = enqueueBound(server, queue, m, 2);

    try (WorkerStream first = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(first.nextJob())).isEqualTo(ids.get(0));
      first.assertNoJobWithin(Duration.ofMillis(150));
    }
    server.awaitJob(ids.get(0), job -> "ready".equals(job.get("status").textValue()),
        "requeued after the disconnect");

    try (WorkerStream second = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(second.nextJob())).isEqualTo(ids.get(0));
      second.assertNoJobWithin(Duration.ofMillis(150));
      server.ack(ids.get(0));
      assertThat(id(second.nextJob())).isEqualTo(ids.get(1));
      server.ack(ids.get(1));
    }
  }

  /** A failed attempt releases its tokens and its retry must acquire again (§5.3, §5.5). */
  @Test
  void failureReleasesConcurrencyTokens() {
    String m = uniqueName("mutex-fail");
    String queue = uniqueName("fail");
    budgets.define(m, whileInFlight(1));
    List<String> ids = enqueueBound(server, queue, m, 2);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(0));
      worker.assertNoJobWithin(Duration.ofMillis(150));
      ObjectNode report = ServerFixture.JSON.createObjectNode().put("message", "boom")
          .put("retry_at", System.currentTimeMillis() + 3_600_000);
      assertThat(server.fail(ids.get(0), report).get("status").textValue())
          .isEqualTo("scheduled");
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(1));
      server.ack(ids.get(1));
    }
  }

  /** §5.2: the best dispatchable job by (priority, id) wins, bound or not. */
  @Test
  void bestDispatchableJobWinsWhetherBoundOrNot() {
    String pool = uniqueName("best");
    String queue = uniqueName("best");
    budgets.define(pool, whileInFlight(10));
    String boundLow = id(server.enqueue(boundJob(queue, pool).put("priority", 20)));
    String unbound = id(server.enqueue(job(queue, "work").put("priority", 10)));
    String boundHigh = id(server.enqueue(boundJob(queue, pool).put("priority", 5)));

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(ids(receiveAndAck(server, worker, 3)))
          .containsExactly(boundHigh, unbound, boundLow);
    }
  }

  /** §5.2: parked jobs do not occupy prefetch slots. */
  @Test
  void parkedJobsDoNotCountAgainstPrefetch() {
    String mutex = uniqueName("prefetch-mutex");
    String queue = uniqueName("prefetch");
    budgets.define(mutex, whileInFlight(1));
    try (Taken holder = server.takeOne(boundJob(uniqueName("prefetch-holder"), mutex))) {
      String parked = id(server.enqueue(boundJob(queue, mutex).put("priority", 0)));
      try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=1")) {
        worker.assertNoJobWithin(Duration.ofMillis(150));
        String unbound = server.enqueueId(queue);

        assertThat(id(worker.nextJob())).isEqualTo(unbound);
        server.ack(unbound);
        worker.assertNoJobWithin(Duration.ofMillis(150));
        server.ack(holder.id());
        assertThat(id(worker.nextJob())).isEqualTo(parked);
        server.ack(parked);
      }
    }
  }

  /** §5.3: time_based tokens spent by a dispatch are not refunded when the worker leaves. */
  @Test
  void rateTokensAreNotRefundedOnDisconnect() {
    String r = uniqueName("no-refund");
    String queue = uniqueName("no-refund");
    budgets.define(r, timeBased(1, 60_000));
    String jobId = id(server.enqueue(boundJob(queue, r)));

    try (WorkerStream first = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(first.nextJob())).isEqualTo(jobId);
    }
    server.awaitJob(jobId, job -> "ready".equals(job.get("status").textValue()),
        "requeued after the disconnect");

    try (WorkerStream second = server.take("queue=" + queue + "&prefetch=0")) {
      second.assertNoJobWithin(Duration.ofMillis(300));
    }
    assertThat(status(server, jobId)).isEqualTo("ready");
  }

  /** §5.3: a retry is a new dispatch and must pay again. */
  @Test
  void everyAttemptPays() {
    String r = uniqueName("each-attempt");
    String queue = uniqueName("each-attempt");
    budgets.define(r, timeBased(1, 60_000));
    String jobId = id(server.enqueue(boundJob(queue, r)));

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(jobId);
      JsonNode failed = server.fail(jobId, ServerFixture.JSON.createObjectNode()
          .put("message", "again").put("retry_at", System.currentTimeMillis()));
      assertThat(failed.get("attempts").intValue()).isEqualTo(1);
      server.awaitJob(jobId, job -> "ready".equals(job.get("status").textValue()),
          "ready for its retry");

      worker.assertNoJobWithin(Duration.ofMillis(300));
    }
  }

  /** §7: tightening the burst caps the tokens at once; switching strategy carries min(T, C). */
  @Test
  void tighteningCapsTheBucketImmediately() {
    String r = uniqueName("tighten");
    String queue = uniqueName("tighten");
    budgets.define(r, timeBased(10, 60_000));
    budgets.patchOk(r, parse("{\"strategy\":{\"burst\":2}}"));
    List<String> ids = enqueueBound(server, queue, r, 4);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(ids(receiveAndAck(server, worker, 2)))
          .containsExactlyElementsOf(ids.subList(0, 2));
      worker.assertNoJobWithin(Duration.ofMillis(300));
    }

    String switched = uniqueName("switch");
    String switchedQueue = uniqueName("switch");
    budgets.define(switched, whileInFlight(5));
    budgets.define(switched, timeBased(1, 60_000));
    List<String> switchedIds = enqueueBound(server, switchedQueue, switched, 3);
    try (WorkerStream worker = server.take("queue=" + switchedQueue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(switchedIds.get(0));
      worker.assertNoJobWithin(Duration.ofMillis(300));
    }
  }

  /** §10: after a restart a concurrency budget starts full and recovered jobs re-acquire. */
  @Test
  void restartRecoversInFlightJobsUnderTheLimit(@TempDir Path tempDir) {
    try (ServerFixture own = ServerFixture.start(tempDir)) {
      new BudgetClient(own).define("m", whileInFlight(1));
      List<String> ids = enqueueBound(own, "recover", "m", 2);
      WorkerStream before = own.take("queue=recover&prefetch=0");
      try (before) {
        assertThat(id(before.nextJob())).isEqualTo(ids.get(0));
        before.assertNoJobWithin(Duration.ofMillis(150));
        own.restart();
        assertThat(before.awaitEnd(ServerFixture.TIMEOUT)).isTrue();
      }
      assertThat(status(own, ids.get(0))).isEqualTo("ready");

      try (WorkerStream after = own.take("queue=recover&prefetch=0")) {
        assertThat(id(after.nextJob())).isEqualTo(ids.get(0));
        after.assertNoJobWithin(Duration.ofMillis(300));
        own.ack(ids.get(0));
        assertThat(id(after.nextJob())).isEqualTo(ids.get(1));
        own.ack(ids.get(1));
      }
    }
  }

  /** §6: a freed slot wakes a stream on the job's queue, not one on other queues. */
  @Test
  void releaseWakesOnlyStreamsOnTheParkedJobsQueue() {
    String mutex = uniqueName("wake");
    String queue = uniqueName("wake");
    String otherQueue = uniqueName("wake-other");
    budgets.define(mutex, whileInFlight(1));
    try (Taken holder = server.takeOne(boundJob(uniqueName("wake-holder"), mutex))) {
      String parked = id(server.enqueue(boundJob(queue, mutex)));
      try (WorkerStream other = server.take("queue=" + otherQueue + "&prefetch=0");
          WorkerStream worker = server.take("queue=" + otherQueue + "," + queue + "&prefetch=0")) {
        worker.assertNoJobWithin(Duration.ofMillis(150));

        server.ack(holder.id());

        assertThat(id(worker.nextJob())).isEqualTo(parked);
        other.assertNoJobWithin(Duration.ofMillis(100));
        server.ack(parked);
      }
    }
  }

  /** §5.2: a budget's head is its best parked job in the stream's queues, not overall. */
  @Test
  void headIsTakenWithinTheStreamsQueues() {
    String x = uniqueName("head-in-q");
    String queueA = uniqueName("head-a");
    String queueB = uniqueName("head-b");
    budgets.define(x, whileInFlight(1));
    String inA = id(server.enqueue(boundJob(queueA, x).put("priority", 0)));
    String inB = id(server.enqueue(boundJob(queueB, x).put("priority", 10)));

    try (WorkerStream onB = server.take("queue=" + queueB + "&prefetch=0")) {
      assertThat(id(onB.nextJob())).isEqualTo(inB);
      try (WorkerStream onA = server.take("queue=" + queueA + "&prefetch=0")) {
        onA.assertNoJobWithin(Duration.ofMillis(200));
        server.ack(inB);
        assertThat(id(onA.nextJob())).isEqualTo(inA);
        server.ack(inA);
      }
    }
  }

  /** §5.5: a job finishing credits only budgets that are while_in_flight now. */
  @Test
  void releaseDoesNotCreditABudgetSwitchedToTimeBased() {
    String m = uniqueName("switch-to-rate");
    String queue = uniqueName("switch-to-rate");
    budgets.define(m, whileInFlight(1));
    List<String> ids = enqueueBound(server, queue, m, 2);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(0));
      budgets.define(m, timeBased(1, 60_000));
      worker.assertNoJobWithin(Duration.ofMillis(150));

      server.ack(ids.get(0));

      worker.assertNoJobWithin(Duration.ofMillis(300));
      assertThat(status(server, ids.get(1))).isEqualTo("ready");
    }
  }

  /** §5.5/§7: switched to while_in_flight, a job dispatched under the rate releases a slot. */
  @Test
  void releaseCreditsABudgetSwitchedToWhileInFlight() {
    String r = uniqueName("switch-to-wif");
    String queue = uniqueName("switch-to-wif");
    budgets.define(r, timeBased(1, 60_000));
    List<String> ids = enqueueBound(server, queue, r, 2);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(0));
      budgets.define(r, whileInFlight(1)); // carries min(T=0, 1) = 0 tokens, no debt
      worker.assertNoJobWithin(Duration.ofMillis(300));

      server.ack(ids.get(0));

      assertThat(id(worker.nextJob())).isEqualTo(ids.get(1));
      server.ack(ids.get(1));
    }
  }

  /** §7: a PUT of an existing budget adjusts its live bucket; it does not refill it. */
  @Test
  void replacingWithTheSamePolicyDoesNotRefill() {
    String r = uniqueName("same-policy");
    String queue = uniqueName("same-policy");
    budgets.define(r, timeBased(1, 60_000));
    List<String> ids = enqueueBound(server, queue, r, 2);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(0));
      server.ack(ids.get(0));

      budgets.define(r, timeBased(1, 60_000));

      worker.assertNoJobWithin(Duration.ofMillis(300));
    }
  }

  /** §10: deleting a budget drops its live state; a new budget of that key starts full. */
  @Test
  void recreatedBudgetStartsFull() {
    String r = uniqueName("recreated");
    String queue = uniqueName("recreated");
    budgets.define(r, timeBased(1, 60_000));
    String spent = id(server.enqueue(boundJob(queue, r)));
    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(spent);
      server.ack(spent);
    }
    assertThat(budgets.delete(r).status()).isEqualTo(204);

    budgets.define(r, timeBased(1, 60_000));
    String fresh = id(server.enqueue(boundJob(queue, r)));

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(fresh);
      server.ack(fresh);
    }
  }

  /** §5.5 (API.md §8.14): deleting an in-flight job releases its concurrency tokens. */
  @Test
  void deletingAnInFlightJobReleasesItsTokens() {
    String m = uniqueName("delete-in-flight");
    String queue = uniqueName("delete-in-flight");
    budgets.define(m, whileInFlight(1));
    List<String> ids = enqueueBound(server, queue, m, 2);

    try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
      assertThat(id(worker.nextJob())).isEqualTo(ids.get(0));
      worker.assertNoJobWithin(Duration.ofMillis(150));

      assertThat(server.send("DELETE", "/jobs/" + ids.get(0), null).status()).isEqualTo(204);

      assertThat(id(worker.nextJob())).isEqualTo(ids.get(1));
      server.ack(ids.get(1));
    }
  }

  /** §5.4: deleting a parked head unparks it; the next job becomes the budget's head. */
  @Test
  void deletingAParkedHeadLetsTheNextOneThrough() {
    String m = uniqueName("delete-parked");
    String queue = uniqueName("delete-parked");
    budgets.define(m, whileInFlight(2));
    try (Taken holder = server.takeOne(boundJob(uniqueName("delete-parked-holder"),
        binding(m, 1)))) {
      String head = id(server.enqueue(boundJob(queue, binding(m, 2)).put("priority", 0)));
      String next = id(server.enqueue(boundJob(queue, binding(m, 1)).put("priority", 1)));
      try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
        worker.assertNoJobWithin(Duration.ofMillis(200)); // strict FIFO: next waits for head

        assertThat(server.send("DELETE", "/jobs/" + head, null).status()).isEqualTo(204);

        assertThat(id(worker.nextJob())).isEqualTo(next);
        server.ack(next);
      }
      server.ack(holder.id());
    }
  }

  /** §10: POST /reset removes jobs and budgets and clears their live state. */
  @Test
  void resetRemovesBudgetsAndTheirState(@TempDir Path tempDir) {
    try (ServerFixture own = ServerFixture.start(tempDir)) {
      BudgetClient client = new BudgetClient(own);
      client.define("r", timeBased(1, 60_000));
      client.define("m", whileInFlight(1));
      String spent = id(own.enqueue(boundJob("reset", binding("r"), binding("m"))));
      String parked = id(own.enqueue(boundJob("reset", binding("r"), binding("m"))));
      try (WorkerStream worker = own.take("queue=reset&prefetch=0")) {
        assertThat(id(worker.nextJob())).isEqualTo(spent);

        assertThat(own.post("/reset").status()).isEqualTo(204);

        assertThat(own.get("/budgets").json()).isEqualTo(parse("{\"budgets\":[]}"));
        assertThat(own.get("/jobs/" + parked).status()).isEqualTo(404);
        client.define("r", timeBased(1, 60_000));
        client.define("m", whileInFlight(1));
        String fresh = id(own.enqueue(boundJob("reset", binding("r"), binding("m"))));
        assertThat(id(worker.nextJob())).isEqualTo(fresh);
        own.ack(fresh);
      }
    }
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  /**
   * Dispatches whose timing is the point, on a manual clock: each is asserted at its exact
   * instant, and a job that must wait is seen still waiting a millisecond before its turn (or
   * for as long as it must). Where the engine's own timer is what is tested, the last move is
   * left to it ({@link ServerFixture#advanceWithoutWaking}).
   */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    static final BudgetClient manualBudgets = new BudgetClient(manualServer);

    static void advanceMs(long millis) {
      manualServer.advance(Duration.ofMillis(millis));
    }

    /** Asserts that a ready job has not been dispatched: it waits for its budgets. */
    static void assertWaiting(String jobId, String when) {
      assertThat(status(manualServer, jobId)).as("job %s %s", jobId, when).isEqualTo("ready");
    }

    /** E1: at most 5 in flight; each ack lets exactly one more through. */
    @Test
    void e1ConcurrencyLimitOfFiveWithSlowJobs() {
      String key = uniqueName("c5");
      String queue = uniqueName("e1");
      manualBudgets.define(key, whileInFlight(5));
      List<String> ids = enqueueBound(manualServer, queue, key, 11);
      long jobRunsMs = 200;
      long t0 = manualServer.nowMs();
      List<JsonNode> received = new ArrayList<>();

      try (WorkerStream stream = manualServer.take("queue=" + queue + "&prefetch=20")) {
        received.addAll(stream.nextJobs(5));
        for (String waiting : ids.subList(5, ids.size())) {
          assertWaiting(waiting, "while 5 are in flight");
        }
        // Each job is acknowledged when it has run for jobRunsMs, in the order they came.
        ArrayDeque<JsonNode> running = new ArrayDeque<>(received);
        while (!running.isEmpty()) {
          JsonNode done = running.poll();
          long ackMs = dequeuedAt(done) + jobRunsMs;
          if (manualServer.nowMs() < ackMs) {
            advanceMs(ackMs - manualServer.nowMs());
          }
          manualServer.ack(id(done));
          if (received.size() < ids.size()) {
            JsonNode next = stream.nextJob();
            assertThat(dequeuedAt(next)).as("job %d dispatched at the ack of %s",
                received.size() + 1, id(done)).isEqualTo(ackMs);
            received.add(next);
            running.add(next);
            if (received.size() < ids.size()) {
              assertWaiting(ids.get(received.size()), "after one ack let one job through");
            }
          }
        }
      }

      assertThat(ids(received)).containsExactlyElementsOf(ids);
      for (JsonNode job : received) {
        assertThat(job.get("budgets")).isEqualTo(BudgetClient.echoed(key, 1));
      }
      for (int i = 0; i < 5; i++) {
        assertThat(dequeuedAt(received.get(i)) - t0).as("job %d with the first burst", i + 1)
            .isZero();
      }
      for (int i = 5; i < 10; i++) {
        assertThat(dequeuedAt(received.get(i)) - t0).as("job %d at t=200 ms", i + 1)
            .isEqualTo(jobRunsMs);
      }
      assertThat(dequeuedAt(received.get(10)) - t0).as("job 11 at t=400 ms")
          .isEqualTo(2 * jobRunsMs);
    }

    /** E2 (and E3): 6 per 600 ms — a burst of 6, then one every 100 ms. */
    @Test
    void e2RateLimitDripsOneJobPerTenthOfThePeriodAfterTheBurst() {
      String key = uniqueName("rate6");
      String queue = uniqueName("e2");
      manualBudgets.define(key, timeBased(6, 600));
      List<String> ids = enqueueBound(manualServer, queue, key, 10);
      long t0 = manualServer.nowMs();

      List<JsonNode> received;
      try (WorkerStream stream = manualServer.take("queue=" + queue + "&prefetch=0")) {
        received = new ArrayList<>(receiveAndAck(manualServer, stream, 6));
        for (int k = 1; k <= 4; k++) {
          advanceMs(99);
          assertWaiting(ids.get(5 + k), "at t=" + (100 * k - 1) + " ms");
          advanceMs(1);
          received.addAll(receiveAndAck(manualServer, stream, 1));
        }
        stream.assertNoJobWithin(Duration.ofMillis(50));
      }

      assertThat(ids(received)).containsExactlyElementsOf(ids);
      for (int i = 0; i < 6; i++) {
        assertThat(dequeuedAt(received.get(i)) - t0).as("job %d in the initial burst", i + 1)
            .isZero();
      }
      for (int k = 1; k <= 4; k++) {
        assertThat(dequeuedAt(received.get(5 + k)) - t0).as("job %d at t=%d ms", 6 + k, 100 * k)
            .isEqualTo(100L * k);
      }
    }

    /** E4: burst 1 — one job at once, then never two within less than 100 ms. */
    @Test
    void e4BurstOfOneSpacesEveryDispatch() {
      String key = uniqueName("burst1");
      String queue = uniqueName("e4");
      manualBudgets.define(key, timeBased(6, 600, 1));
      List<String> ids = enqueueBound(manualServer, queue, key, 5);
      long t0 = manualServer.nowMs();

      List<JsonNode> received;
      try (WorkerStream stream = manualServer.take("queue=" + queue + "&prefetch=0")) {
        received = new ArrayList<>(receiveAndAck(manualServer, stream, 1));
        for (int k = 1; k < 5; k++) {
          advanceMs(99);
          assertWaiting(ids.get(k), "99 ms after the previous dispatch");
          advanceMs(1);
          received.addAll(receiveAndAck(manualServer, stream, 1));
        }
      }

      assertThat(ids(received)).containsExactlyElementsOf(ids);
      for (int k = 0; k < 5; k++) {
        assertThat(dequeuedAt(received.get(k)) - t0).as("job %d at t=%d ms", k + 1, 100 * k)
            .isEqualTo(100L * k);
      }
    }

    /**
     * §3 NextAvailable with a cost above 1: 4 per 400 ms (one token per 100 ms), two jobs costing
     * 3 each — the first drains the full bucket to 1, the second waits for 2 more tokens.
     */
    @Test
    void costlyJobWaitsForAllItsTokens() {
      String key = uniqueName("costly");
      String queue = uniqueName("costly");
      manualBudgets.define(key, timeBased(4, 400));
      String first = id(manualServer.enqueue(boundJob(queue, binding(key, 3))));
      String second = id(manualServer.enqueue(boundJob(queue, binding(key, 3))));

      List<JsonNode> received;
      try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
        received = new ArrayList<>(receiveAndAck(manualServer, worker, 1));
        advanceMs(199);
        assertWaiting(second, "with 2 of its 3 tokens");
        advanceMs(1);
        received.addAll(receiveAndAck(manualServer, worker, 1));
      }

      assertThat(ids(received)).containsExactly(first, second);
      assertThat(dequeuedAt(received.get(1)) - dequeuedAt(received.get(0))).isEqualTo(200);
    }

    /** E6: a parked head does not stall unbound jobs or other budgets. */
    @Test
    void e6ParkedJobDoesNotStallOthers() {
      String solo = uniqueName("solo");
      String fast = uniqueName("fast");
      manualBudgets.define(solo, whileInFlight(1));
      manualBudgets.define(fast, whileInFlight(100));
      String queue = uniqueName("e6");

      try (Taken a = manualServer.takeOne(
          boundJob(uniqueName("e6-a"), solo).put("priority", 0))) {
        String b = id(manualServer.enqueue(boundJob(queue, solo).put("priority", 0)));
        String c = id(manualServer.enqueue(job(queue, "work").put("priority", 100)));
        String d = id(manualServer.enqueue(boundJob(queue, fast).put("priority", 50)));

        try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
          assertThat(id(worker.nextJob())).isEqualTo(d);
          assertThat(id(worker.nextJob())).isEqualTo(c);
          advanceMs(300);
          assertWaiting(b, "while A runs");

          long ackMs = manualServer.nowMs();
          manualServer.ack(a.id());
          JsonNode delivered = worker.nextJob();

          assertThat(id(delivered)).isEqualTo(b);
          assertThat(dequeuedAt(delivered)).as("B at A's ack (spec: < 50 ms)").isEqualTo(ackMs);
          manualServer.ack(b);
          manualServer.ack(c);
          manualServer.ack(d);
        }
      }
    }

    /** E10: widening 2 → 5 hands out the 3 new slots at once. */
    @Test
    void e10WidenWhileRunning() {
      String c = uniqueName("widen");
      String queue = uniqueName("e10");
      manualBudgets.define(c, whileInFlight(2));
      List<String> ids = enqueueBound(manualServer, queue, c, 7);

      try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
        assertThat(ids(worker.nextJobs(2))).containsExactlyElementsOf(ids.subList(0, 2));
        advanceMs(200);
        assertWaiting(ids.get(2), "while 2 run");

        JsonNode patched = manualBudgets.patchOk(c, parse("{\"allocation\":5}"));
        long patchedMs = patched.get("updated_at").longValue();

        List<JsonNode> more = worker.nextJobs(3);
        assertThat(ids(more)).containsExactlyElementsOf(ids.subList(2, 5));
        for (JsonNode job : more) {
          assertThat(dequeuedAt(job)).as("new slot used at the patch (spec: < 50 ms)")
              .isEqualTo(patchedMs);
        }
        assertWaiting(ids.get(5), "with all 5 slots taken");
        assertWaiting(ids.get(6), "with all 5 slots taken");
      }
    }

    /** A 1-per-4000 ms budget whose first job was dispatched at t0, now t0+2000, one job parked. */
    private record HalfAccrued(WorkerStream worker, List<String> ids, long t0)
        implements AutoCloseable {
      @Override
      public void close() {
        worker.close();
      }
    }

    private HalfAccrued drainedHalfwayToTheNextToken(String r, String queue) {
      manualBudgets.define(r, timeBased(1, 4000));
      List<String> ids = enqueueBound(manualServer, queue, r, 2);
      WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0");
      try {
        JsonNode first = worker.nextJob();
        assertThat(id(first)).isEqualTo(ids.get(0));
        manualServer.ack(ids.get(0));
        long t0 = dequeuedAt(first);
        advanceMs(2000);
        assertWaiting(ids.get(1), "halfway to the next token");
        return new HalfAccrued(worker, ids, t0);
      } catch (RuntimeException | AssertionError e) {
        worker.close();
        throw e;
      }
    }

    /**
     * E11: raising the rate keeps the progress accrued toward the next token. 1 per 4000 ms,
     * drained at t0; at t0+2000 the rate becomes 5 per 4000 ms: the 2000 token·ms kept need
     * another 2000 at 5 per ms, so the parked job goes at patch + 400 ms (not + 800 ms, which
     * discarding progress would give, nor t0 + 4000 ms at the old rate).
     */
    @Test
    void e11ReRateKeepsProgress() {
      String r = uniqueName("rerate");
      String queue = uniqueName("e11");

      try (HalfAccrued h = drainedHalfwayToTheNextToken(r, queue)) {
        WorkerStream worker = h.worker();
        List<String> ids = h.ids();
        long t0 = h.t0();

        JsonNode patched = manualBudgets.patchOk(r, parse("{\"allocation\":5}"));
        long patchedMs = patched.get("updated_at").longValue();
        long kept = patchedMs - t0;
        assertThat(kept).as("progress at the patch").isEqualTo(2000);
        long expectedMs = patchedMs + Math.max(1, ceilDiv(4000 - kept, 5));
        advanceMs(expectedMs - patchedMs - 1);
        assertWaiting(ids.get(1), "a millisecond before the next token");
        advanceMs(1);

        JsonNode second = worker.nextJob();
        assertThat(id(second)).isEqualTo(ids.get(1));
        assertThat(dequeuedAt(second)).as("expected at %d ms after the patch (progress "
                + "discarded would give %d)", expectedMs - patchedMs, 800)
            .isEqualTo(expectedMs);
        manualServer.ack(ids.get(1));
      }
    }

    /**
     * E12: changing the period discards the accrued progress: 1 per 4000 ms drained at t0, at
     * t0+2000 it becomes 2 per 1000 ms, so the parked job goes at patch + 500 ms.
     */
    @Test
    void e12PeriodChangeDiscardsProgress() {
      String r = uniqueName("reperiod");
      String queue = uniqueName("e12");

      try (HalfAccrued h = drainedHalfwayToTheNextToken(r, queue)) {
        WorkerStream worker = h.worker();
        List<String> ids = h.ids();

        JsonNode patched = manualBudgets.patchOk(r,
            parse("{\"allocation\":2,\"strategy\":{\"duration_ms\":1000}}"));
        assertThat(patched.get("strategy"))
            .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":1000}"));
        long patchedMs = patched.get("updated_at").longValue();
        advanceMs(499);
        assertWaiting(ids.get(1), "a millisecond before the next token");
        advanceMs(1);

        JsonNode second = worker.nextJob();
        assertThat(id(second)).isEqualTo(ids.get(1));
        assertThat(dequeuedAt(second) - patchedMs).as("delivery after the patch").isEqualTo(500);
        manualServer.ack(ids.get(1));
      }
    }

    /** E13: token state is not persisted — a restart refills a drained rate budget. */
    @Test
    void e13RestartForgivesSpending(@TempDir Path tempDir) {
      try (ServerFixture own = ServerFixture.start(tempDir, new ManualClock())) {
        BudgetClient client = new BudgetClient(own);
        String r = "r";
        String queue = "e13";
        client.define(r, timeBased(6, 60_000));
        List<String> ids = enqueueBound(own, queue, r, 11);

        try (WorkerStream worker = own.take("queue=" + queue + "&prefetch=0")) {
          assertThat(ids(receiveAndAck(own, worker, 6)))
              .containsExactlyElementsOf(ids.subList(0, 6));
        }
        // The last millisecond before the first token drips back in (one per 10 s).
        own.advance(Duration.ofMillis(9_999));
        for (String parked : ids.subList(6, 11)) {
          assertThat(status(own, parked)).isEqualTo("ready");
        }
        JsonNode policy = client.fetch(r);

        own.restart();
        long restartedMs = own.nowMs();

        assertThat(client.fetch(r)).as("policy survives the restart").isEqualTo(policy);
        try (WorkerStream worker = own.take("queue=" + queue + "&prefetch=0")) {
          List<JsonNode> after = receiveAndAck(own, worker, 5);
          assertThat(ids(after)).containsExactlyElementsOf(ids.subList(6, 11));
          for (JsonNode job : after) {
            assertThat(dequeuedAt(job)).as("delivered at startup, with no time for a drip")
                .isEqualTo(restartedMs);
            assertThat(job.get("budgets")).isEqualTo(BudgetClient.echoed(r, 1));
          }
          worker.assertNoJobWithin(Duration.ofMillis(100));
        }
      }
    }

    /** §6: one timer for the earliest At(t); it is re-armed for the next head after firing. */
    @Test
    void timerIsReArmedForEachRateBudget() {
      String fast = uniqueName("timer-fast");
      String slow = uniqueName("timer-slow");
      String queue = uniqueName("timers");
      manualBudgets.define(fast, timeBased(1, 300));
      manualBudgets.define(slow, timeBased(1, 600));
      List<String> fastIds = enqueueBound(manualServer, queue, fast, 2);
      List<String> slowIds = enqueueBound(manualServer, queue, slow, 2);

      List<JsonNode> received;
      try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
        received = new ArrayList<>(receiveAndAck(manualServer, worker, 2));
        // Only the timers the engine arms for the two budgets can wake it for the drips.
        manualServer.advanceWithoutWaking(Duration.ofMillis(300));
        received.addAll(receiveAndAck(manualServer, worker, 1));
        manualServer.advanceWithoutWaking(Duration.ofMillis(300));
        received.addAll(receiveAndAck(manualServer, worker, 1));
      }

      assertThat(ids(received)).containsExactly(fastIds.get(0), slowIds.get(0), fastIds.get(1),
          slowIds.get(1));
      long fastSpent = dequeuedAt(received.get(0));
      long slowSpent = dequeuedAt(received.get(1));
      assertThat(dequeuedAt(received.get(2)) - fastSpent).isEqualTo(300);
      assertThat(dequeuedAt(received.get(3)) - slowSpent).isEqualTo(600);
    }

    /** §3 combination: a release that leaves a rate budget short must arm its timer. */
    @Test
    void releaseBeforeTheDripArmsTheTimer() {
      String m = uniqueName("combo-m");
      String r = uniqueName("combo-r");
      String queue = uniqueName("combo-release-first");
      manualBudgets.define(m, whileInFlight(1));
      manualBudgets.define(r, timeBased(1, 800));

      try (Taken holder = manualServer.takeOne(boundJob(uniqueName("combo-holder"), m));
          Taken spender = manualServer.takeOne(boundJob(uniqueName("combo-spender"), r))) {
        long spentMs = spender.dequeuedAtMs();
        String both = id(manualServer.enqueue(boundJob(queue, binding(m), binding(r))));
        try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
          assertWaiting(both, "while m is held");
          manualServer.ack(holder.id()); // m is free now; r pays only at spentMs + 800
          // Only the timer that the release armed for r can wake the engine from here on.
          manualServer.advanceWithoutWaking(
              Duration.ofMillis(spentMs + 800 - manualServer.nowMs()));

          JsonNode delivered = worker.nextJob();

          assertThat(id(delivered)).isEqualTo(both);
          assertThat(dequeuedAt(delivered) - spentMs).isEqualTo(800);
          manualServer.ack(both);
        }
        manualServer.ack(spender.id());
      }
    }

    /** §3 combination: a drip that finds the concurrency budget busy waits for the release. */
    @Test
    void dripBeforeTheReleaseWaitsForTheRelease() {
      String m = uniqueName("combo2-m");
      String r = uniqueName("combo2-r");
      String queue = uniqueName("combo-drip-first");
      manualBudgets.define(m, whileInFlight(1));
      manualBudgets.define(r, timeBased(1, 300));

      try (Taken holder = manualServer.takeOne(boundJob(uniqueName("combo2-holder"), m));
          Taken spender = manualServer.takeOne(boundJob(uniqueName("combo2-spender"), r))) {
        String both = id(manualServer.enqueue(boundJob(queue, binding(m), binding(r))));
        try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
          advanceMs(spender.dequeuedAtMs() + 500 - manualServer.nowMs());
          assertWaiting(both, "200 ms after r's drip, m still held");

          long ackMs = manualServer.nowMs();
          manualServer.ack(holder.id());
          JsonNode delivered = worker.nextJob();

          assertThat(id(delivered)).isEqualTo(both);
          assertThat(dequeuedAt(delivered)).as("at the release").isEqualTo(ackMs);
          manualServer.ack(both);
        }
        manualServer.ack(spender.id());
      }
    }

    /** §5.1: scheduled jobs are not parked; once promoted they park and wait like others. */
    @Test
    void promotedJobsParkAndAreReleasedLikeOthers() {
      String m = uniqueName("promoted");
      String queue = uniqueName("promoted");
      manualBudgets.define(m, whileInFlight(1));
      try (Taken holder = manualServer.takeOne(boundJob(uniqueName("promoted-holder"), m))) {
        long readyAtMs = manualServer.nowMs() + 300;
        String later = id(manualServer.enqueue(boundJob(queue, m).put("ready_at", readyAtMs)));
        assertThat(status(manualServer, later)).isEqualTo("scheduled");
        try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
          advanceMs(300);
          assertWaiting(later, "promoted at its ready_at, behind the holder");

          manualServer.ack(holder.id());

          assertThat(id(worker.nextJob())).isEqualTo(later);
          manualServer.ack(later);
        }
      }
    }

    /** §5.1: a promoted job whose budget can pay is delivered when it becomes ready. */
    @Test
    void promotedJobWithAFreeBudgetIsDelivered() {
      String x = uniqueName("promoted-free");
      String queue = uniqueName("promoted-free");
      manualBudgets.define(x, whileInFlight(1));
      long readyAtMs = manualServer.nowMs() + 300;
      String later = id(manualServer.enqueue(boundJob(queue, x).put("ready_at", readyAtMs)));

      try (WorkerStream worker = manualServer.take("queue=" + queue + "&prefetch=0")) {
        advanceMs(299);
        assertThat(status(manualServer, later)).isEqualTo("scheduled");
        advanceMs(1);
        JsonNode delivered = worker.nextJob();

        assertThat(id(delivered)).isEqualTo(later);
        assertThat(dequeuedAt(delivered)).isEqualTo(readyAtMs);
        manualServer.ack(later);
      }
    }
  }
}
