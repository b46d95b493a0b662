package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.assertMsgpackError;
import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.encode;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.path;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.engine.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partitioned budgets (EXTENSIONS.md X3) over HTTP on a manual clock, in JSON and MessagePack:
 * the policy flag, the binding rules and their 422s, bindings echoing their partition, dispatch
 * per partition over a real take stream, all-or-nothing payment with a plain budget, the live
 * state of the budget and of one partition (X1), the partition listing and its page links,
 * pausing one partition or all (X6), why a job waits (X2), filtering jobs by partition, the
 * binding routes, cron templates, throttles and settlements naming a partition (X5, X6), and a
 * durable partitioned budget across a restart (X4).
 */
class PartitionedBudgetHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final BudgetClient budgets = new BudgetClient(server);

  /** {@code policy} with {@code "partitioned": true}. */
  static ObjectNode partitioned(ObjectNode policy) {
    return policy.put("partitioned", true);
  }

  /** {@code {"key": k, "partition": p}}. */
  static ObjectNode onPartition(String key, String partition) {
    return binding(key).put("partition", partition);
  }

  /** A job of {@code queue} bound to partition {@code partition} of {@code key}. */
  static ObjectNode jobOn(String queue, String key, String partition) {
    return boundJob(queue, onPartition(key, partition));
  }

  static JsonNode partitionState(String key, String partition) {
    Reply reply = server.get(path(key) + "/partitions/" + encode(partition));
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    return reply.json();
  }

  static JsonNode wholeState(String key) {
    Reply reply = server.get(path(key) + "?state=true");
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    return reply.json().get("state");
  }

  static String status(String id) {
    return server.getJob(id).get("status").textValue();
  }

  @Nested
  class ThePolicyFlag {
    @Test
    void postAndPutShowPartitionedWhileAPlainBudgetReadsAsBefore() {
      String key = uniqueName("per-account");
      String put = uniqueName("per-account-put");
      String plain = uniqueName("plain");

      Reply created = budgets.create(key, partitioned(timeBased(100, 1_000)));
      assertThat(created.status()).as("%s", created).isEqualTo(201);
      assertThat(created.json().get("partitioned").booleanValue()).isTrue();
      assertThat(budgets.fetch(key).get("partitioned").booleanValue()).isTrue();
      assertThat(server.get(path(key) + "?state=true").json().get("partitioned").booleanValue())
          .isTrue();
      assertThat(server.get("/budgets").json().get("budgets")).anySatisfy(listed -> {
        assertThat(listed.get("key").textValue()).isEqualTo(key);
        assertThat(listed.get("partitioned").booleanValue()).isTrue();
      });
      assertThat(budgets.define(put, partitioned(whileInFlight(2))).get("partitioned")
          .booleanValue()).isTrue();

      JsonNode plainBudget = budgets.define(plain, timeBased(100, 1_000).put("partitioned", false));
      assertThat(plainBudget.has("partitioned")).as("false is not shown").isFalse();
      assertThat(BudgetClient.without(plainBudget, "created_at", "updated_at"))
          .isEqualTo(parse("{\"key\":\"" + plain + "\",\"allocation\":100,"
              + "\"strategy\":{\"type\":\"time_based\",\"duration_ms\":1000}}"));
      assertThat(wholeState(plain).has("partitions"))
          .as("a plain budget's state has no partition count").isFalse();
    }

    @Test
    void theFlagTravelsInMessagePack() {
      String key = uniqueName("mp-per-account");
      Reply created = budgets.sendMsgpack("POST", path(key), partitioned(whileInFlight(1)));
      assertThat(created.status()).as("%s", created).isEqualTo(201);
      assertThat(created.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(created.msgpack().get("partitioned").booleanValue()).isTrue();

      Reply changed = budgets.sendMsgpack("PUT", path(key), whileInFlight(1));
      assertMsgpackError(changed, 422, "budget partitioned cannot be changed");
      Reply mistyped = budgets.sendMsgpack("PATCH", path(key), parse("{\"partitioned\":1}"));
      assertMsgpackError(mistyped, 400, "invalid MessagePack: `partitioned` must be a boolean");
    }

    @Test
    void partitionedIsFixedAtCreation() {
      String key = uniqueName("fixed");
      String plain = uniqueName("fixed-plain");
      JsonNode before = budgets.define(key, partitioned(whileInFlight(1)));
      JsonNode plainBefore = budgets.define(plain, whileInFlight(1));

      assertError(budgets.put(key, whileInFlight(2)), 422, "budget partitioned cannot be changed");
      assertError(budgets.put(key, whileInFlight(2).put("partitioned", false)), 422,
          "budget partitioned cannot be changed");
      assertError(budgets.put(plain, partitioned(whileInFlight(2))), 422,
          "budget partitioned cannot be changed");
      assertError(budgets.patch(plain, "{\"partitioned\":true}"), 422,
          "budget partitioned cannot be changed");
      assertError(budgets.patch(key, "{\"partitioned\":false}"), 422,
          "budget partitioned cannot be changed");
      assertError(budgets.patch(key, "{\"partitioned\":null}"), 422,
          "partitioned cannot be null");
      assertError(budgets.patch(key, "{\"partitioned\":\"yes\"}"), 400,
          "invalid JSON: `partitioned` must be a boolean");
      assertThat(budgets.fetch(key)).isEqualTo(before);
      assertThat(budgets.fetch(plain)).isEqualTo(plainBefore);

      JsonNode patched = budgets.patchOk(key, parse("{\"allocation\":3,\"partitioned\":true}"));
      assertThat(patched.get("partitioned").booleanValue()).isTrue();
      assertThat(patched.get("allocation").longValue()).isEqualTo(3);
      assertThat(budgets.patchOk(key, parse("{\"allocation\":4}")).get("partitioned")
          .booleanValue()).as("a patch without the field keeps it").isTrue();
      assertThat(budgets.define(key, partitioned(whileInFlight(5))).get("allocation").longValue())
          .as("a PUT that keeps the flag is accepted").isEqualTo(5);
    }

    @Test
    void createWithMakesAPartitionedBudgetOnEnqueueAndBulkEnqueue() {
      String queue = uniqueName("cw");
      String single = queue + "-single";
      String bulk = queue + "-bulk";
      String refused = queue + "-refused";
      JsonNode policy = partitioned(whileInFlight(1));

      ObjectNode withoutPartition = boundJob(queue,
          BudgetClient.bindingCreating(refused, policy));
      assertError(server.postJson("/jobs", withoutPartition), 422,
          "budget " + refused + " is partitioned: binding requires a partition");
      assertThat(budgets.get(refused).status()).as("nothing created").isEqualTo(404);

      JsonNode job = server.enqueue(boundJob(queue,
          BudgetClient.bindingCreating(single, policy).put("partition", "acct_1")));
      assertThat(job.at("/budgets/0/partition").textValue()).isEqualTo("acct_1");
      assertThat(budgets.fetch(single).get("partitioned").booleanValue()).isTrue();

      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs")
          .add(boundJob(queue, BudgetClient.bindingCreating(bulk, policy).put("partition", "a")))
          .add(jobOn(queue, bulk, "b"));
      Reply created = server.postMsgpack("/jobs/bulk", toMsgpack(body));
      assertThat(created.status()).as("%s", created).isEqualTo(201);
      JsonNode jobs = created.msgpack().get("jobs");
      assertThat(jobs.get(0).at("/budgets/0/partition").textValue()).isEqualTo("a");
      assertThat(jobs.get(1).at("/budgets/0/partition").textValue()).isEqualTo("b");
      assertThat(budgets.fetch(bulk).get("partitioned").booleanValue()).isTrue();

      ObjectNode bad = JSON.createObjectNode();
      bad.putArray("jobs").add(jobOn(queue, bulk, "c")).add(boundJob(queue, bulk));
      assertError(server.postJson("/jobs/bulk", bad), 422,
          "jobs[1]: budget " + bulk + " is partitioned: binding requires a partition");
    }
  }

  /** The README's example, "Per-tenant limits under a global one", answers as it shows. */
  @Test
  void theReadmeExampleAnswersAsShown() {
    String perAccount = uniqueName("stripe-per-account");
    String global = uniqueName("stripe-global");
    budgets.define(perAccount, partitioned(timeBased(100, 1_000)));
    budgets.define(global, timeBased(1_000, 1_000));
    ObjectNode job = boundJob(uniqueName("stripe"), onPartition(perAccount, "acct_42"),
        binding(global));
    job.putObject("payload").put("amount", 900);
    server.enqueue(job);

    JsonNode listed = server.get(path(perAccount) + "/partitions?limit=100").json();
    assertThat(listed.at("/partitions/0/state/as_of").longValue()).isEqualTo(server.nowMs());
    assertThat(BudgetClient.without(listed, "as_of")).isEqualTo(parse(("""
        {"partitions":[{"key":"%1$s","partition":"acct_42",
                        "state":{"tokens":100,"capacity":100,"debt":0,
                                 "in_flight":{"jobs":0,"cost":0},"waiting":{"jobs":1,"cost":1},
                                 "next_token_at":null,"full_at":null,"paused_until":null,
                                 "dispatched":0}}],
         "pages":{"self":"/budgets/%1$s/partitions?order=asc&limit=100","next":null,"prev":null}}
        """).formatted(perAccount)));
  }

  @Nested
  class BindingRules {
    @Test
    void everyBindingRuleIsAClearUnprocessableEntityInJsonAndMessagePack() {
      String queue = uniqueName("rules");
      String key = queue + "-per-account";
      String plain = queue + "-global";
      budgets.define(key, partitioned(whileInFlight(1)));
      budgets.define(plain, whileInFlight(1));

      assertError(server.postJson("/jobs", boundJob(queue, key)), 422,
          "budget " + key + " is partitioned: binding requires a partition");
      assertError(server.postJson("/jobs", jobOn(queue, plain, "a")), 422,
          "budget " + plain + " is not partitioned");
      assertError(server.postJson("/jobs", jobOn(queue, key, "a,b")), 422,
          "budget partition must not contain ','");
      assertError(server.postJson("/jobs", jobOn(queue, key, "")), 422,
          "budget partition must not be empty");
      assertError(server.postJson("/jobs", jobOn(queue, key, "é".repeat(129))), 422,
          "budget partition must be at most 256 bytes");
      assertError(server.postJson("/jobs", boundJob(queue, binding(key).put("partition", 7))),
          400, "invalid JSON: `budgets[].partition` must be a string");
      assertError(server.postJson("/jobs", boundJob(queue, binding(key).putNull("partition"))),
          422, "budget " + key + " is partitioned: binding requires a partition");

      assertMsgpackError(server.postMsgpack("/jobs", toMsgpack(boundJob(queue, key))), 422,
          "budget " + key + " is partitioned: binding requires a partition");
      assertMsgpackError(server.postMsgpack("/jobs", toMsgpack(jobOn(queue, plain, "a"))), 422,
          "budget " + plain + " is not partitioned");
      assertThat(QueryClient.count(server, "queue=" + queue)).as("nothing enqueued").isZero();

      String longest = "é".repeat(128);
      JsonNode accepted = server.enqueue(jobOn(queue, key, longest));
      assertThat(accepted.at("/budgets/0/partition").textValue()).isEqualTo(longest);
    }

    @Test
    void partitionRoutesRefuseAPlainBudgetAndAnUnknownOne() {
      String plain = uniqueName("routes-plain");
      budgets.define(plain, whileInFlight(1));

      assertError(server.get(path(plain) + "/partitions"), 422,
          "budget " + plain + " is not partitioned");
      assertError(server.get(path(plain) + "/partitions/a"), 422,
          "budget " + plain + " is not partitioned");
      assertError(server.postJson(path(plain) + "/partitions/a/pause", "{\"for_ms\":5}"), 422,
          "budget " + plain + " is not partitioned");
      assertError(server.post(path(plain) + "/partitions/a/resume"), 422,
          "budget " + plain + " is not partitioned");
      assertThat(server.get("/budgets/no-such-budget/partitions").status()).isEqualTo(404);
      assertThat(server.get("/budgets/no-such-budget/partitions/a").status()).isEqualTo(404);
    }
  }

  @Nested
  class Dispatch {
    @Test
    void bindingsEchoTheirPartitionInEveryJobRepresentation() {
      String queue = uniqueName("echo");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      ObjectNode request = boundJob(queue, onPartition(key, "acct/7 é").put("cost", 1));
      JsonNode expected = JSON.createArrayNode().add(JSON.createObjectNode()
          .put("key", key).put("partition", "acct/7 é").put("cost", 1));

      JsonNode enqueued = server.enqueue(request);
      String jobId = id(enqueued);
      assertThat(enqueued.get("budgets")).isEqualTo(expected);
      assertThat(server.getJob(jobId).get("budgets")).isEqualTo(expected);
      assertThat(server.get("/jobs/" + jobId, "Accept", MSGPACK_TYPE).msgpack().get("budgets"))
          .isEqualTo(expected);
      assertThat(QueryClient.listedJob(server, jobId).get("budgets")).isEqualTo(expected);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(stream.nextJob().get("budgets")).isEqualTo(expected);
      }
      try (WorkerStream stream = server.take("queue=" + queue,
          ServerFixture.MSGPACK_STREAM_TYPE)) {
        // The first stream closed with the job in flight, so it is ready again.
        assertThat(stream.nextJob().get("budgets")).isEqualTo(expected);
      }
    }

    @Test
    void eachPartitionHoldsItsOwnSlotOverATakeStream() {
      String queue = uniqueName("slots");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      String a1 = id(server.enqueue(jobOn(queue, key, "acct_a")));
      String a2 = id(server.enqueue(jobOn(queue, key, "acct_a")));
      String b1 = id(server.enqueue(jobOn(queue, key, "acct_b")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        assertThat(List.of(id(stream.nextJob()), id(stream.nextJob())))
            .containsExactly(a1, b1);
        stream.assertNoJobWithin(Duration.ofMillis(100));
        assertThat(status(a2)).isEqualTo("ready");

        server.ack(b1);
        stream.assertNoJobWithin(Duration.ofMillis(100));
        server.ack(a1);
        assertThat(id(stream.nextJob())).isEqualTo(a2);
      }
    }

    @Test
    void aPerAccountLimitUnderAGlobalOneIsPaidAllOrNothing() {
      String queue = uniqueName("global");
      String perAccount = queue + "-per-account";
      String global = queue + "-global";
      budgets.define(perAccount, partitioned(timeBased(2, 1_000)));
      budgets.define(global, timeBased(3, 1_000));
      List<String> ids = new ArrayList<>();
      for (String account : List.of("a", "a", "a", "b", "b")) {
        ids.add(id(server.enqueue(boundJob(queue, onPartition(perAccount, account),
            binding(global)))));
      }

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        // Account a may have two a second; the global three a second then lets b have one.
        assertThat(List.of(id(stream.nextJob()), id(stream.nextJob()), id(stream.nextJob())))
            .containsExactly(ids.get(0), ids.get(1), ids.get(3));
        assertThat(wholeState(global).get("tokens").longValue()).isZero();
        assertThat(partitionState(perAccount, "b").at("/state/tokens").longValue()).isEqualTo(1);
        assertThat(partitionState(perAccount, "a").at("/state/tokens").longValue()).isZero();

        // A global token every 333⅓ ms: b's second job first, then a's third once account a
        // has a token again (500 ms) and the global budget its next (666⅔ ms).
        server.advance(Duration.ofMillis(333));
        assertThat(status(ids.get(4))).isEqualTo("ready");
        server.advance(Duration.ofMillis(1));
        assertThat(id(stream.nextJob())).isEqualTo(ids.get(4));
        server.advance(Duration.ofMillis(166));
        assertThat(status(ids.get(2))).as("account a has its token, the global budget none")
            .isEqualTo("ready");
        assertThat(partitionState(perAccount, "a").at("/state/tokens").longValue()).isEqualTo(1);
        server.advance(Duration.ofMillis(166));
        assertThat(status(ids.get(2))).isEqualTo("ready");
        server.advance(Duration.ofMillis(1));
        assertThat(id(stream.nextJob())).isEqualTo(ids.get(2));
      }
    }
  }

  @Nested
  class LiveState {
    @Test
    void theBudgetAsAWholeSumsItsPartitionsAndEachPartitionHasItsOwnTokens() {
      String queue = uniqueName("state");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(timeBased(2, 1_000)));
      server.enqueue(jobOn(queue, key, "a"));
      server.enqueue(jobOn(queue, key, "a"));
      server.enqueue(jobOn(queue, key, "a"));
      server.enqueue(boundJob(queue, onPartition(key, "b").put("cost", 2)));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        stream.nextJobs(3);
        long now = server.nowMs();

        JsonNode whole = wholeState(key);
        assertThat(whole.get("as_of").longValue()).isEqualTo(now);
        assertThat(whole.get("tokens").isNull()).isTrue();
        assertThat(whole.get("debt").isNull()).isTrue();
        assertThat(whole.get("next_token_at").isNull()).isTrue();
        assertThat(whole.get("full_at").isNull()).isTrue();
        assertThat(whole.get("capacity").longValue()).isEqualTo(2);
        assertThat(whole.get("in_flight")).isEqualTo(parse("{\"jobs\":3,\"cost\":4}"));
        assertThat(whole.get("waiting")).isEqualTo(parse("{\"jobs\":1,\"cost\":1}"));
        assertThat(whole.get("dispatched").longValue()).isEqualTo(3);
        assertThat(whole.get("partitions").longValue()).isEqualTo(2);
        JsonNode listed = server.get("/budgets?state=true").json().get("budgets");
        assertThat(listed).anySatisfy(budget -> {
          assertThat(budget.get("key").textValue()).isEqualTo(key);
          assertThat(budget.at("/state/partitions").longValue()).isEqualTo(2);
        });

        JsonNode a = partitionState(key, "a");
        assertThat(a.get("key").textValue()).isEqualTo(key);
        assertThat(a.get("partition").textValue()).isEqualTo("a");
        JsonNode aState = a.get("state");
        assertThat(aState.get("tokens").longValue()).isZero();
        assertThat(aState.get("debt").longValue()).isZero();
        assertThat(aState.get("in_flight")).isEqualTo(parse("{\"jobs\":2,\"cost\":2}"));
        assertThat(aState.get("waiting")).isEqualTo(parse("{\"jobs\":1,\"cost\":1}"));
        assertThat(aState.get("next_token_at").longValue()).isEqualTo(now + 500);
        assertThat(aState.get("full_at").longValue()).isEqualTo(now + 1_000);
        assertThat(aState.has("partitions")).as("a partition has no partition count").isFalse();

        JsonNode unused = partitionState(key, "never-used");
        assertThat(unused.get("partition").textValue()).isEqualTo("never-used");
        assertThat(unused.at("/state/tokens").longValue()).as("a fresh pool is full")
            .isEqualTo(2);
        assertThat(unused.at("/state/in_flight/jobs").longValue()).isZero();
        assertThat(unused.at("/state/next_token_at").isNull()).isTrue();
        assertThat(unused.at("/state/full_at").isNull()).isTrue();
        Reply packed = server.get(path(key) + "/partitions/b", "Accept", MSGPACK_TYPE);
        assertThat(packed.contentType()).isEqualTo(MSGPACK_TYPE);
        assertThat(packed.msgpack().at("/state/in_flight/cost").longValue()).isEqualTo(2);
        assertThat(wholeState(key).get("partitions").longValue())
            .as("reading a partition not in use does not make it active").isEqualTo(2);
      }
    }

    @Test
    void partitionsAreListedByValueAPageAtATimeFollowingThePageLinks() {
      String queue = uniqueName("pages");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      for (String account : List.of("d", "acct/7 é", "b", "a", "c")) {
        server.enqueue(jobOn(queue, key, account));
      }
      String base = path(key) + "/partitions";

      JsonNode first = server.get(base + "?limit=2").json();
      assertThat(partitions(first)).containsExactly("a", "acct/7 é");
      assertThat(first.at("/partitions/1/key").textValue()).isEqualTo(key);
      assertThat(first.at("/partitions/1/state/waiting/jobs").longValue()).isEqualTo(1);
      assertThat(first.at("/partitions/1/state/tokens").longValue()).isEqualTo(1);
      assertThat(first.at("/pages/self").textValue()).isEqualTo(base + "?order=asc&limit=2");
      assertThat(first.at("/pages/prev").isNull()).isTrue();
      String next = first.at("/pages/next").textValue();
      assertThat(next).isEqualTo(base + "?from=acct%2F7%20%C3%A9&order=asc&limit=2");

      JsonNode second = server.get(next).json();
      assertThat(partitions(second)).containsExactly("b", "c");
      assertThat(second.at("/pages/self").textValue()).isEqualTo(next);
      assertThat(second.at("/pages/prev").textValue())
          .isEqualTo(base + "?from=b&order=desc&limit=2");
      assertThat(partitions(server.get(second.at("/pages/prev").textValue()).json()))
          .containsExactly("acct/7 é", "a");

      JsonNode last = server.get(second.at("/pages/next").textValue()).json();
      assertThat(partitions(last)).containsExactly("d");
      assertThat(last.at("/pages/next").isNull()).isTrue();

      assertThat(partitions(server.get(base + "?order=desc").json()))
          .containsExactly("d", "c", "b", "acct/7 é", "a");
      Reply packed = server.get(base + "?from=c", "Accept", MSGPACK_TYPE);
      assertThat(packed.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(partitions(packed.msgpack())).containsExactly("d");
      assertThat(server.get(base + "?limit=0").status()).isEqualTo(400);
      assertThat(server.get(base + "?state=true").status())
          .as("state is implicit, not a parameter").isEqualTo(400);
      assertThat(partitionState(key, "acct/7 é").at("/state/waiting/jobs").longValue())
          .isEqualTo(1);
    }

    @Test
    void theBusiestPartitionsComeFirstWithSortWaiting() {
      String queue = uniqueName("busiest");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      for (String account : List.of("c", "a", "c", "b", "c", "b")) {
        server.enqueue(jobOn(queue, key, account));
      }
      String base = path(key) + "/partitions";

      JsonNode busiest = server.get(base + "?sort=waiting&limit=2").json();
      assertThat(partitions(busiest)).containsExactly("c", "b");
      assertThat(busiest.at("/partitions/0/state/waiting/jobs").longValue()).isEqualTo(3);
      assertThat(busiest.at("/pages/self").textValue())
          .isEqualTo(base + "?sort=waiting&limit=2");
      assertThat(busiest.at("/pages/next").isNull()).isTrue();
      assertThat(server.get(base + "?sort=tokens").json().get("error").textValue())
          .isEqualTo("invalid query parameters: sort must be \"waiting\"");
      assertThat(server.get(base + "?sort=waiting&from=a").json().get("error").textValue())
          .isEqualTo("invalid query parameters: sort=waiting takes no from or order");
    }

    private List<String> partitions(JsonNode page) {
      List<String> values = new ArrayList<>();
      for (JsonNode partition : page.get("partitions")) {
        values.add(partition.get("partition").textValue());
      }
      return values;
    }

    @Test
    void whyAJobWaitsNamesItsPartitionAndCountsOnlyItsJobsAhead() {
      String queue = uniqueName("wait");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(timeBased(1, 1_000)));
      String a1 = id(server.enqueue(jobOn(queue, key, "a")));
      String b1 = id(server.enqueue(jobOn(queue, key, "b")));
      server.enqueue(jobOn(queue, key, "a"));
      server.enqueue(jobOn(queue, key, "b"));
      String a3 = id(server.enqueue(jobOn(queue, key, "a")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        assertThat(List.of(id(stream.nextJob()), id(stream.nextJob())))
            .containsExactly(a1, b1);
        JsonNode wait = server.get("/jobs/" + a3 + "/wait").json();
        assertThat(wait.get("waiting_for").textValue()).isEqualTo("budgets");
        assertThat(wait.get("budgets")).isEqualTo(parse("[{\"key\":\"" + key + "\","
            + "\"partition\":\"a\",\"cost\":1,\"blocking\":true,\"reason\":\"queue\","
            + "\"tokens\":0,\"ahead\":{\"jobs\":1,\"cost\":1},"
            + "\"available_at\":" + (server.nowMs() + 2_000) + "}]"));
        assertThat(wait.get("estimated_dispatch_at").longValue())
            .isEqualTo(server.nowMs() + 2_000);
        JsonNode packed = server.get("/jobs/" + a3 + "/wait", "Accept", MSGPACK_TYPE).msgpack();
        assertThat(packed.at("/budgets/0/partition").textValue()).isEqualTo("a");
      }
    }

    @Test
    void jobsAreFilteredByPartitionOnlyBesideABudgetKey() {
      String queue = uniqueName("filter");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      String a = id(server.enqueue(jobOn(queue, key, "acct/7 é")));
      String b = id(server.enqueue(jobOn(queue, key, "b")));
      String c = id(server.enqueue(jobOn(queue, key, "c")));
      String keyParam = "budgets.key=" + QueryClient.enc(key);

      assertThat(QueryClient.listIds(server, keyParam + "&budgets.partition="
          + QueryClient.enc("acct/7 é"))).containsExactly(a);
      assertThat(QueryClient.listIds(server, keyParam + "&budgets.partition=b,c"))
          .containsExactly(b, c);
      assertThat(QueryClient.listIds(server, keyParam)).containsExactly(a, b, c);
      assertThat(QueryClient.count(server, keyParam + "&budgets.partition=c")).isEqualTo(1);
      assertThat(QueryClient.listIds(server, "budgets.key=other&budgets.partition=b")).isEmpty();

      assertError(server.get("/jobs?budgets.partition=b"), 400,
          "invalid query parameters: budgets.partition requires budgets.key");
      assertError(server.get("/jobs/count?budgets.partition=b"), 400,
          "invalid query parameters: budgets.partition requires budgets.key");
    }
  }

  @Nested
  class Pauses {
    @Test
    void pausingOnePartitionHoldsOnlyItsJobsUntilThePauseEnds() {
      String queue = uniqueName("pause-one");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      long until = server.nowMs() + 1_000;

      Reply paused = server.postJson(path(key) + "/partitions/a/pause", "{\"for_ms\":1000}");
      assertThat(paused.status()).as("%s", paused).isEqualTo(200);
      assertThat(paused.json().get("partition").textValue()).isEqualTo("a");
      assertThat(paused.json().at("/state/paused_until").longValue()).isEqualTo(until);
      String a = id(server.enqueue(jobOn(queue, key, "a")));
      String b = id(server.enqueue(jobOn(queue, key, "b")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        assertThat(id(stream.nextJob())).isEqualTo(b);
        JsonNode wait = server.get("/jobs/" + a + "/wait").json();
        assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("paused");
        assertThat(wait.at("/budgets/0/partition").textValue()).isEqualTo("a");
        assertThat(wholeState(key).get("paused_until").isNull())
            .as("the budget itself is not paused").isTrue();
        server.advance(Duration.ofMillis(999));
        assertThat(status(a)).isEqualTo("ready");
        server.advance(Duration.ofMillis(1));
        assertThat(id(stream.nextJob())).isEqualTo(a);
      }
    }

    @Test
    void resumingAPartitionEndsItsPauseAtOnceInMessagePackToo() {
      String queue = uniqueName("resume-one");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      long until = server.nowMs() + 60_000;
      Reply paused = budgets.sendMsgpack("POST", path(key) + "/partitions/" + encode("acct/7 é")
          + "/pause", parse("{\"until\":" + until + "}"));
      assertThat(paused.status()).as("%s", paused).isEqualTo(200);
      assertThat(paused.msgpack().get("partition").textValue()).isEqualTo("acct/7 é");
      assertThat(paused.msgpack().at("/state/paused_until").longValue()).isEqualTo(until);
      String held = id(server.enqueue(jobOn(queue, key, "acct/7 é")));

      try (WorkerStream stream = server.take("queue=" + queue)) {
        stream.assertNoJobWithin(Duration.ofMillis(50));
        Reply resumed = server.post(path(key) + "/partitions/" + encode("acct/7 é") + "/resume");
        assertThat(resumed.status()).as("%s", resumed).isEqualTo(200);
        assertThat(resumed.json().at("/state/paused_until").isNull()).isTrue();
        assertThat(id(stream.nextJob())).isEqualTo(held);
      }
      assertThat(server.postJson(path(key) + "/partitions/a/pause", "{}").status())
          .isEqualTo(400);
    }

    @Test
    void pausingTheBudgetPausesEveryPartitionIncludingNewOnes() {
      String queue = uniqueName("pause-all");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      String a = id(server.enqueue(jobOn(queue, key, "a")));

      Reply paused = server.postJson(path(key) + "/pause", "{\"for_ms\":1000}");
      assertThat(paused.status()).as("%s", paused).isEqualTo(200);
      assertThat(paused.json().at("/state/paused_until").longValue())
          .isEqualTo(server.nowMs() + 1_000);
      assertThat(paused.json().at("/state/partitions").longValue()).isEqualTo(1);
      String b = id(server.enqueue(jobOn(queue, key, "b")));
      assertThat(server.get("/jobs/" + b + "/wait").json().at("/budgets/0/reason").textValue())
          .isEqualTo("paused");

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        stream.assertNoJobWithin(Duration.ofMillis(50));
        Reply resumed = server.post(path(key) + "/resume");
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(List.of(id(stream.nextJob()), id(stream.nextJob()))).containsExactly(a, b);
      }
    }
  }

  @Nested
  class BindingRoutesAndCron {
    @Test
    void bindingRoutesTakeAPartitionAndAPatchOfTheCostKeepsIt() {
      String queue = uniqueName("rebind");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      String jobId = server.enqueueId(queue);
      String jobBudgets = "/jobs/" + jobId + "/budgets";

      assertError(budgets.sendJson("POST", jobBudgets + "/" + encode(key), "{\"cost\":2}"), 422,
          "budget " + key + " is partitioned: binding requires a partition");
      Reply added = budgets.sendJson("POST", jobBudgets + "/" + encode(key),
          "{\"cost\":2,\"partition\":\"a\"}");
      assertThat(added.status()).as("%s", added).isEqualTo(200);
      assertThat(added.json().get("budgets")).isEqualTo(parse("[{\"key\":\"" + key
          + "\",\"partition\":\"a\",\"cost\":2}]"));

      Reply patched = budgets.sendJson("PATCH", jobBudgets + "/" + encode(key), "{\"cost\":3}");
      assertThat(patched.status()).as("%s", patched).isEqualTo(200);
      assertThat(patched.json().get("budgets")).isEqualTo(parse("[{\"key\":\"" + key
          + "\",\"partition\":\"a\",\"cost\":3}]"));
      assertThat(partitionState(key, "a").at("/state/waiting"))
          .isEqualTo(parse("{\"jobs\":1,\"cost\":3}"));

      Reply put = budgets.sendMsgpack("PUT", jobBudgets + "/" + encode(key),
          parse("{\"partition\":\"b\"}"));
      assertThat(put.status()).as("%s", put).isEqualTo(200);
      assertThat(put.msgpack().at("/budgets/0/partition").textValue()).isEqualTo("b");
      assertThat(partitionState(key, "a").at("/state/waiting/jobs").longValue()).isZero();
      assertThat(partitionState(key, "b").at("/state/waiting/jobs").longValue()).isEqualTo(1);

      Reply replaced = budgets.sendJson("PUT", jobBudgets,
          "{\"budgets\":[{\"key\":\"" + key + "\",\"partition\":\"c\",\"cost\":1}]}");
      assertThat(replaced.status()).as("%s", replaced).isEqualTo(200);
      assertThat(replaced.json().at("/budgets/0/partition").textValue()).isEqualTo("c");

      String other = server.enqueueId(queue);
      Reply bulk = budgets.sendJson("PUT", "/jobs/budgets/" + encode(key) + "?id=" + other,
          "{\"partition\":\"d\"}");
      assertThat(bulk.status()).as("%s", bulk).isEqualTo(200);
      assertThat(bulk.json().get("changed").longValue()).isEqualTo(1);
      assertThat(QueryClient.listIds(server, "budgets.key=" + QueryClient.enc(key)
          + "&budgets.partition=d")).containsExactly(other);
      Reply bulkPatch = budgets.sendJson("PATCH", "/jobs/budgets/" + encode(key)
          + "?queue=" + queue, "{\"cost\":2}");
      assertThat(bulkPatch.json().get("changed").longValue()).isEqualTo(2);
      assertThat(server.getJob(other).get("budgets")).isEqualTo(parse("[{\"key\":\"" + key
          + "\",\"partition\":\"d\",\"cost\":2}]"));
      assertError(budgets.sendJson("PUT", "/jobs/budgets/" + encode(key) + "?id=" + other,
          "{}"), 422, "budget " + key + " is partitioned: binding requires a partition");
    }

    @Test
    void aCronTemplateBindsAPartitionAndItsJobsDrawOnIt() {
      CronClient crons = new CronClient(server);
      String group = uniqueName("cron-partition");
      String queue = uniqueName("cron-fired");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(1)));
      ObjectNode entry = CronClient.entry("tick", "* * * * * *", queue);
      ((ObjectNode) entry.get("job")).putArray("budgets")
          .add(onPartition(key, "acct_42").put("cost", 1));

      ObjectNode unpartitioned = entry.deepCopy();
      ((ObjectNode) unpartitioned.get("job")).putArray("budgets").add(binding(key));
      // A bad template is a 400 like every template error (CronHttpTest), with the same words.
      assertError(crons.putGroup(group, CronClient.group(unpartitioned)), 400,
          "budget " + key + " is partitioned: binding requires a partition");

      try {
        JsonNode created = crons.putGroupOk(group, CronClient.group(entry));
        JsonNode expected = parse("[{\"key\":\"" + key + "\",\"partition\":\"acct_42\","
            + "\"cost\":1}]");
        assertThat(created.at("/entries/0/job/budgets")).isEqualTo(expected);
        JsonNode read = crons.fetchEntry(group, "tick");
        assertThat(read.at("/job/budgets")).isEqualTo(expected);

        server.advance(Duration.ofMillis(read.get("next_enqueue_at").longValue()
            - server.nowMs()));
        List<String> fired = QueryClient.listIds(server, "queue=" + queue);
        assertThat(fired).isNotEmpty();
        assertThat(server.getJob(fired.get(0)).get("budgets")).isEqualTo(expected);
      } finally {
        server.delete(CronClient.groupPath(group));
      }
    }
  }

  @Nested
  class ThrottlesAndSettlements {
    private ObjectNode throttled(String key, String partition, long retryAfterMs) {
      ObjectNode report = JSON.createObjectNode().put("message", "429");
      ObjectNode throttle = report.putObject("throttle").put("budget", key)
          .put("retry_after_ms", retryAfterMs);
      if (partition != null) {
        throttle.put("partition", partition);
      }
      return report;
    }

    @Test
    void aThrottleNamingThePartitionPausesOnlyIt() {
      String queue = uniqueName("throttle");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      String a1 = id(server.enqueue(jobOn(queue, key, "a")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        assertThat(id(stream.nextJob())).isEqualTo(a1);
        String failure = "/jobs/" + a1 + "/failure";
        assertError(server.postJson(failure, throttled(key, "b", 1_000)), 422,
            "job is not bound to partition b of budget " + key);
        assertMsgpackError(server.postMsgpack(failure, toMsgpack(throttled(key, "b", 1_000))),
            422, "job is not bound to partition b of budget " + key);
        assertThat(status(a1)).isEqualTo("in_flight");

        Reply answered = server.postMsgpack(failure, toMsgpack(throttled(key, "a", 1_000)));
        assertThat(answered.status()).as("%s", answered).isEqualTo(200);
        assertThat(answered.msgpack().get("status").textValue()).isEqualTo("ready");
        assertThat(partitionState(key, "a").at("/state/paused_until").longValue())
            .isEqualTo(server.nowMs() + 1_000);
        assertThat(partitionState(key, "b").at("/state/paused_until").isNull()).isTrue();

        String b1 = id(server.enqueue(jobOn(queue, key, "b")));
        assertThat(id(stream.nextJob())).isEqualTo(b1);
        server.advance(Duration.ofMillis(1_000));
        assertThat(id(stream.nextJob())).isEqualTo(a1);
      }
    }

    @Test
    void aThrottleWithoutAPartitionPausesThePartitionTheJobDrawsOn() {
      String queue = uniqueName("throttle-implicit");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(whileInFlight(5)));
      String a1 = id(server.enqueue(jobOn(queue, key, "a")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        assertThat(id(stream.nextJob())).isEqualTo(a1);
        server.fail(a1, throttled(key, null, 2_000));
        assertThat(partitionState(key, "a").at("/state/paused_until").longValue())
            .isEqualTo(server.nowMs() + 2_000);
        assertThat(wholeState(key).get("paused_until").isNull()).isTrue();
      }
    }

    @Test
    void aSettlementNamingThePartitionSettlesItAndAnotherIsRefused() {
      String queue = uniqueName("settle");
      String key = queue + "-per-account";
      budgets.define(key, partitioned(timeBased(10, 10_000)));
      ObjectNode kept = jobOn(queue, key, "a");
      kept.putObject("retention").put("completed_ms", 60_000);
      String a1 = id(server.enqueue(kept));
      String b1 = id(server.enqueue(jobOn(queue, key, "b")));

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        stream.nextJobs(2);
        String success = "/jobs/" + a1 + "/success";
        String wrong = "{\"budgets\":[{\"key\":\"" + key + "\",\"partition\":\"b\",\"cost\":4}]}";
        assertError(server.postJson(success, wrong), 422,
            "job is not bound to partition b of budget " + key);
        assertMsgpackError(server.postMsgpack(success, toMsgpack(parse(wrong))), 422,
            "job is not bound to partition b of budget " + key);
        assertThat(status(a1)).as("nothing acknowledged").isEqualTo("in_flight");

        Reply acked = server.postJson(success,
            "{\"budgets\":[{\"key\":\"" + key + "\",\"partition\":\"a\",\"cost\":4}]}");
        assertThat(acked.status()).as("%s", acked).isEqualTo(204);
        assertThat(partitionState(key, "a").at("/state/tokens").longValue()).isEqualTo(6);
        assertThat(partitionState(key, "b").at("/state/tokens").longValue()).isEqualTo(9);
        assertThat(server.getJob(a1).get("budgets")).isEqualTo(parse("[{\"key\":\"" + key
            + "\",\"partition\":\"a\",\"cost\":1,\"settled_cost\":4}]"));

        // Naming the partition is optional: the binding says which one it draws on.
        Reply packed = server.postMsgpack("/jobs/" + b1 + "/success", toMsgpack(
            parse("{\"budgets\":[{\"key\":\"" + key + "\",\"cost\":0}]}")));
        assertThat(packed.status()).as("%s", packed).isEqualTo(204);
        assertThat(partitionState(key, "b").at("/state/tokens").longValue()).isEqualTo(10);
      }
    }
  }

  /** X4 with X3: each partition's spent tokens survive a restart of the real server. */
  @Nested
  class Durable {
    @TempDir Path dir;

    @Test
    void eachPartitionResumesAfterARestartFromWhatItHadSpent() {
      try (ServerFixture own = ServerFixture.start(dir, new ManualClock())) {
        BudgetClient ownBudgets = new BudgetClient(own);
        String queue = "durable-q";
        String key = "durable-per-account";
        ownBudgets.define(key, partitioned(timeBased(2, 1_000)).put("durable", true));
        assertThat(ownBudgets.fetch(key).get("durable").booleanValue()).isTrue();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          ids.add(id(own.enqueue(jobOn(queue, key, "a"))));
          ids.add(id(own.enqueue(jobOn(queue, key, "b"))));
        }
        try (WorkerStream stream = own.take("queue=" + queue + "&prefetch=10")) {
          for (JsonNode job : stream.nextJobs(4)) {
            own.ack(id(job));
          }
        }
        own.advance(Duration.ofMillis(499));

        own.restart();

        for (String partition : List.of("a", "b")) {
          JsonNode state = own.get(path(key) + "/partitions/" + partition).json().get("state");
          assertThat(state.get("tokens").longValue()).as("partition %s", partition).isZero();
          assertThat(state.get("next_token_at").longValue()).isEqualTo(own.nowMs() + 1);
        }
        try (WorkerStream stream = own.take("queue=" + queue + "&prefetch=10")) {
          stream.assertNoJobWithin(Duration.ofMillis(100));
          own.advance(Duration.ofMillis(1));
          assertThat(List.of(id(stream.nextJob()), id(stream.nextJob())))
              .containsExactlyInAnyOrder(ids.get(4), ids.get(5));
        }
      }
    }
  }
}
