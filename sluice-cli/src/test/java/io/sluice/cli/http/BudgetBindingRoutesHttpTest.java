package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.assertErrorStartingWith;
import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.echoed;
import static io.sluice.cli.http.BudgetClient.encode;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Changing the bindings of queued jobs (BUDGETS.md §8.7): the single-job routes, the bulk routes
 * with set filters, and their effect on parking, dispatch and the guards of §8.6/§8.9. Tests
 * share one server and use their own queues and budget keys; bulk calls are always narrowed to
 * the test's queue.
 */
class BudgetBindingRoutesHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final BudgetClient budgets = new BudgetClient(server);

  static String bindingsPath(String jobId) {
    return "/jobs/" + jobId + "/budgets";
  }

  static String bindingPath(String jobId, String key) {
    return bindingsPath(jobId) + "/" + encode(key);
  }

  /** A single-job route answered 200 with the job without payload; returns it. */
  static JsonNode assertJobReply(Reply reply, String jobId) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    JsonNode job = reply.json();
    assertThat(id(job)).isEqualTo(jobId);
    assertThat(job.has("payload")).as("payload in %s", job).isFalse();
    assertThat(job.has("duplicate")).isFalse();
    assertThat(job.has("folded")).isFalse();
    return job;
  }

  static JsonNode bulkResult(int changed, String... blocked) {
    ObjectNode result = JSON.createObjectNode().put("changed", changed);
    var list = result.putArray("blocked");
    for (String jobId : blocked) {
      list.add(jobId);
    }
    return result;
  }

  @Nested
  class SingleJob {
    @Test
    void putReplacesTheWholeSetAndEmptyUnbindsAll() {
      String a = uniqueName("set-a");
      String b = uniqueName("set-b");
      String queue = uniqueName("set");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(queue, a)));

      ObjectNode body = JSON.createObjectNode();
      body.putArray("budgets").add(binding(b, 3)).add(binding(a));
      JsonNode replaced = assertJobReply(budgets.sendJson("PUT", bindingsPath(jobId), body), jobId);

      assertThat(replaced.get("budgets")).isEqualTo(echoed(b, 3, a, 1));
      assertThat(replaced.get("status").textValue()).isEqualTo("ready");
      assertThat(server.getJob(jobId).get("budgets")).isEqualTo(echoed(b, 3, a, 1));

      JsonNode none =
          assertJobReply(budgets.sendJson("PUT", bindingsPath(jobId), "{\"budgets\":[]}"), jobId);
      assertThat(none.has("budgets")).isFalse();
      assertThat(server.getJob(jobId).has("budgets")).isFalse();
    }

    @Test
    void deleteAllUnbinds() {
      String a = uniqueName("unbind-all");
      budgets.define(a, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(uniqueName("unbind-all"), a)));

      JsonNode job = assertJobReply(server.send("DELETE", bindingsPath(jobId), null), jobId);

      assertThat(job.has("budgets")).isFalse();
    }

    @Test
    void postAddsAtTheEndAndRefusesAnExistingBinding() {
      String a = uniqueName("add-a");
      String b = uniqueName("add-b");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(uniqueName("add"), a)));

      JsonNode added = assertJobReply(
          budgets.sendJson("POST", bindingPath(jobId, b), "{\"cost\":2}"), jobId);
      assertThat(added.get("budgets")).isEqualTo(echoed(a, 1, b, 2));

      assertError(budgets.sendJson("POST", bindingPath(jobId, b), "{}"), 409,
          "job " + jobId + " is already bound to budget '" + b + "'");
      assertThat(server.getJob(jobId).get("budgets")).isEqualTo(echoed(a, 1, b, 2));
    }

    @Test
    void postWithoutABodyBindsWithCostOne() {
      String a = uniqueName("add-nobody");
      budgets.define(a, whileInFlight(5));
      String jobId = server.enqueueId(uniqueName("add-nobody"));

      JsonNode added = assertJobReply(server.post(bindingPath(jobId, a)), jobId);

      assertThat(added.get("budgets")).isEqualTo(echoed(a, 1));
    }

    @Test
    void putOneReplacesInPlaceWithCostDefaultingToOne() {
      String a = uniqueName("put-one-a");
      String b = uniqueName("put-one-b");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(uniqueName("put-one"), binding(a, 4),
          binding(b, 2))));

      JsonNode replaced =
          assertJobReply(budgets.sendJson("PUT", bindingPath(jobId, a), "{}"), jobId);
      assertThat(replaced.get("budgets")).isEqualTo(echoed(a, 1, b, 2));

      JsonNode costly =
          assertJobReply(budgets.sendJson("PUT", bindingPath(jobId, a), "{\"cost\":5}"), jobId);
      assertThat(costly.get("budgets")).isEqualTo(echoed(a, 5, b, 2));
    }

    @Test
    void putOneCreatesTheBudgetWithCreateWith() {
      String key = uniqueName("put-one-create");
      String jobId = server.enqueueId(uniqueName("put-one-create"));
      ObjectNode body = JSON.createObjectNode().put("cost", 2);
      body.set("create_with", whileInFlight(8));

      JsonNode job = assertJobReply(budgets.sendJson("PUT", bindingPath(jobId, key), body), jobId);

      assertThat(job.get("budgets")).isEqualTo(echoed(key, 2));
      assertThat(budgets.fetch(key).get("allocation").intValue()).isEqualTo(8);
    }

    @Test
    void patchChangesTheCostOfAnExistingBindingOnly() {
      String a = uniqueName("patch-cost");
      String other = uniqueName("patch-cost-other");
      budgets.define(a, whileInFlight(5));
      budgets.define(other, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(uniqueName("patch-cost"), a)));

      JsonNode patched =
          assertJobReply(budgets.sendJson("PATCH", bindingPath(jobId, a), "{\"cost\":3}"), jobId);
      assertThat(patched.get("budgets")).isEqualTo(echoed(a, 3));

      assertError(budgets.sendJson("PATCH", bindingPath(jobId, other), "{\"cost\":3}"), 404,
          "job " + jobId + " is not bound to budget '" + other + "'");
      assertError(budgets.sendJson("PATCH", bindingPath(jobId, a), "{\"cost\":6}"), 422,
          "cost 6 exceeds budget '" + a + "', which holds at most 5");
      assertError(budgets.sendJson("PATCH", bindingPath(jobId, a), "{\"cost\":0}"), 422,
          "budget cost must be at least 1");
      assertErrorStartingWith(budgets.sendJson("PATCH", bindingPath(jobId, a), "{}"), 400,
          "invalid JSON: ");
      assertThat(server.getJob(jobId).get("budgets")).isEqualTo(echoed(a, 3));
    }

    @Test
    void deleteOneRemovesItAndAnUnboundKeyIsNotFound() {
      String a = uniqueName("del-one-a");
      String b = uniqueName("del-one-b");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String jobId = id(server.enqueue(boundJob(uniqueName("del-one"), binding(a), binding(b))));

      JsonNode job = assertJobReply(server.send("DELETE", bindingPath(jobId, a), null), jobId);

      assertThat(job.get("budgets")).isEqualTo(echoed(b, 1));
      assertError(server.send("DELETE", bindingPath(jobId, a), null), 404,
          "job " + jobId + " is not bound to budget '" + a + "'");
    }

    @Test
    void resolutionErrorsAreUnprocessableAndChangeNothing() {
      String a = uniqueName("resolve");
      String missing = uniqueName("resolve-missing");
      budgets.define(a, whileInFlight(2));
      String jobId = id(server.enqueue(boundJob(uniqueName("resolve"), a)));

      assertError(server.post(bindingPath(jobId, missing)), 422, "budget '" + missing
          + "' does not exist and no create_with policy was supplied to create it with");
      ObjectNode twice = JSON.createObjectNode();
      twice.putArray("budgets").add(binding(a)).add(binding(a, 2));
      assertError(budgets.sendJson("PUT", bindingsPath(jobId), twice), 422,
          "budget '" + a + "' named more than once");
      assertError(budgets.sendJson("PUT", bindingPath(jobId, a), "{\"cost\":3}"), 422,
          "cost 3 exceeds budget '" + a + "', which holds at most 2");
      assertError(budgets.sendJson("POST", bindingPath(jobId, "a,b"), "{}"), 422,
          "budget key must not contain ','");
      assertErrorStartingWith(budgets.sendJson("PUT", bindingsPath(jobId), "{\"budgets\":\"x\"}"),
          400, "invalid JSON: ");
      assertThat(server.getJob(jobId).get("budgets")).isEqualTo(echoed(a, 1));
      assertThat(budgets.get(missing).status()).isEqualTo(404);
    }

    @Test
    void unknownJobIsNotFound() {
      String a = uniqueName("nojob");
      budgets.define(a, whileInFlight(2));

      assertError(server.post(bindingPath("zzzzzzzzzzzzzzzzzzzzzzzzz", a)), 404, "job not found");
      assertError(server.send("DELETE", bindingsPath("zzzzzzzzzzzzzzzzzzzzzzzzz"), null), 404,
          "job not found");
    }

    @Test
    void inFlightJobCannotChangeBudgets() {
      String a = uniqueName("inflight");
      budgets.define(a, whileInFlight(2));
      try (Taken taken = server.takeOne(boundJob(uniqueName("inflight"), a))) {
        String message = "job " + taken.id()
            + " is in_flight; only scheduled or ready jobs can change budgets";

        assertError(server.send("DELETE", bindingsPath(taken.id()), null), 422, message);
        assertError(budgets.sendJson("PATCH", bindingPath(taken.id(), a), "{\"cost\":2}"), 422,
            message);
        server.ack(taken.id());
      }
    }

    @Test
    void scheduledJobCanChangeBudgets() {
      String a = uniqueName("scheduled");
      budgets.define(a, whileInFlight(2));
      ObjectNode later = job(uniqueName("scheduled"), "work")
          .put("ready_at", System.currentTimeMillis() + 3_600_000);
      String jobId = id(server.enqueue(later));

      JsonNode job = assertJobReply(server.post(bindingPath(jobId, a)), jobId);

      assertThat(job.get("status").textValue()).isEqualTo("scheduled");
      assertThat(job.get("budgets")).isEqualTo(echoed(a, 1));
    }
  }

  /** Rebinding re-parks the job and moves the unfinished-job tracking (§5.6, §8.7). */
  @Nested
  class Effects {
    @Test
    void removingTheLastBindingOfAParkedJobDispatchesIt() {
      String mutex = uniqueName("unpark");
      String queue = uniqueName("unpark");
      budgets.define(mutex, whileInFlight(1));
      try (Taken holder = server.takeOne(boundJob(uniqueName("unpark-holder"), mutex))) {
        String parked = id(server.enqueue(boundJob(queue, mutex)));
        try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
          worker.assertNoJobWithin(Duration.ofMillis(200));

          assertJobReply(server.send("DELETE", bindingsPath(parked), null), parked);

          assertThat(id(worker.nextJob())).isEqualTo(parked);
          server.ack(parked);
        }
        server.ack(holder.id());
      }
    }

    @Test
    void bindingAReadyJobToAnOccupiedBudgetParksIt() {
      String mutex = uniqueName("park");
      String queue = uniqueName("park");
      budgets.define(mutex, whileInFlight(1));
      String jobId = server.enqueueId(queue);
      try (Taken holder = server.takeOne(boundJob(uniqueName("park-holder"), mutex))) {
        assertJobReply(server.post(bindingPath(jobId, mutex)), jobId);
        try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
          worker.assertNoJobWithin(Duration.ofMillis(200));
          assertThat(server.getJob(jobId).get("status").textValue()).isEqualTo("ready");

          server.ack(holder.id());

          assertThat(id(worker.nextJob())).isEqualTo(jobId);
          server.ack(jobId);
        }
      }
    }

    @Test
    void raisingTheCostOfAParkedHeadKeepsItWaiting() {
      String pool = uniqueName("cost-up");
      String queue = uniqueName("cost-up");
      budgets.define(pool, whileInFlight(3));
      try (Taken holder = server.takeOne(boundJob(uniqueName("cost-up-holder"),
          binding(pool, 2)))) {
        String jobId = server.enqueueId(queue);
        assertJobReply(budgets.sendJson("PUT", bindingPath(jobId, pool), "{\"cost\":2}"), jobId);
        try (WorkerStream worker = server.take("queue=" + queue + "&prefetch=0")) {
          worker.assertNoJobWithin(Duration.ofMillis(200));

          assertJobReply(
              budgets.sendJson("PATCH", bindingPath(jobId, pool), "{\"cost\":1}"), jobId);

          assertThat(id(worker.nextJob())).isEqualTo(jobId);
          server.ack(jobId);
        }
        server.ack(holder.id());
      }
    }

    @Test
    void guardsFollowTheBindingsThroughRebinding() {
      String from = uniqueName("guard-from");
      String to = uniqueName("guard-to");
      budgets.define(from, whileInFlight(10));
      budgets.define(to, whileInFlight(10));
      String jobId = id(server.enqueue(boundJob(uniqueName("guard-move"), binding(from, 5))));
      assertThat(budgets.patch(from, "{\"allocation\":4}").status()).isEqualTo(422);

      ObjectNode body = JSON.createObjectNode();
      body.putArray("budgets").add(binding(to, 5));
      assertJobReply(budgets.sendJson("PUT", bindingsPath(jobId), body), jobId);

      assertThat(budgets.patch(from, "{\"allocation\":4}").status()).isEqualTo(200);
      assertThat(budgets.delete(from).status()).isEqualTo(204);
      assertError(budgets.patch(to, "{\"allocation\":4}"), 422, "budget '" + to
          + "' cannot allocate 4: 1 unfinished job draw up to 5 from it. Raise the allocation, "
          + "delete them, or wait for them to drain.");
      assertError(budgets.delete(to), 409, "budget '" + to + "' is referenced by 1 unfinished "
          + "job. Delete them or wait for them to finish before deleting it.");
    }

    @Test
    void deletingTheJobReleasesTheGuard() {
      String key = uniqueName("guard-delete");
      budgets.define(key, whileInFlight(10));
      String jobId = id(server.enqueue(boundJob(uniqueName("guard-delete"), binding(key, 5))));
      assertThat(budgets.delete(key).status()).isEqualTo(409);

      assertThat(server.send("DELETE", "/jobs/" + jobId, null).status()).isEqualTo(204);

      assertThat(budgets.delete(key).status()).isEqualTo(204);
    }

    @Test
    void deadJobsNoLongerBlockAndKeepTheirBindings() {
      String key = uniqueName("guard-dead");
      budgets.define(key, whileInFlight(10));
      ObjectNode request = boundJob(uniqueName("guard-dead"), binding(key, 5))
          .put("retry_limit", 0);
      request.putObject("retention").put("dead_ms", 60_000);
      try (Taken taken = server.takeOne(request)) {
        assertThat(budgets.delete(key).status()).isEqualTo(409);
        assertThat(budgets.patch(key, "{\"allocation\":4}").status()).isEqualTo(422);

        JsonNode dead = server.fail(taken.id(),
            JSON.createObjectNode().put("message", "gives up"));

        assertThat(dead.get("status").textValue()).isEqualTo("dead");
        assertThat(dead.get("budgets")).isEqualTo(echoed(key, 5));
        assertThat(server.getJob(taken.id()).get("budgets")).isEqualTo(echoed(key, 5));
        assertThat(budgets.patch(key, "{\"allocation\":4}").status()).isEqualTo(200);
        assertThat(budgets.delete(key).status()).isEqualTo(204);
        assertThat(server.getJob(taken.id()).get("budgets")).isEqualTo(echoed(key, 5));
      }
    }
  }

  @Nested
  class Bulk {
    @Test
    void postAddsToMatchingJobsAndSkipsThoseAlreadyBound() {
      String key = uniqueName("bulk-add");
      String queue = uniqueName("bulk-add");
      budgets.define(key, whileInFlight(5));
      String bound = id(server.enqueue(boundJob(queue, binding(key, 2))));
      String free1 = server.enqueueId(queue);
      String free2 = server.enqueueId(queue);
      String elsewhere = server.enqueueId(uniqueName("bulk-add-other"));

      Reply reply = budgets.sendJson("POST", "/jobs/budgets/" + encode(key) + "?queue=" + queue,
          "{\"cost\":3}");

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json()).isEqualTo(bulkResult(2));
      assertThat(server.getJob(bound).get("budgets")).isEqualTo(echoed(key, 2));
      assertThat(server.getJob(free1).get("budgets")).isEqualTo(echoed(key, 3));
      assertThat(server.getJob(free2).get("budgets")).isEqualTo(echoed(key, 3));
      assertThat(server.getJob(elsewhere).has("budgets")).isFalse();
    }

    @Test
    void putBindsOrReplacesWhole() {
      String key = uniqueName("bulk-put");
      String queue = uniqueName("bulk-put");
      budgets.define(key, whileInFlight(5));
      String same = id(server.enqueue(boundJob(queue, binding(key, 1))));
      String costly = id(server.enqueue(boundJob(queue, binding(key, 4))));
      String free = server.enqueueId(queue);

      Reply reply = budgets.sendJson("PUT", "/jobs/budgets/" + encode(key) + "?queue=" + queue,
          "{}");

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json()).isEqualTo(bulkResult(2));
      for (String jobId : new String[] {same, costly, free}) {
        assertThat(server.getJob(jobId).get("budgets")).isEqualTo(echoed(key, 1));
      }
    }

    @Test
    void patchChangesCostsOfBoundJobsOnly() {
      String key = uniqueName("bulk-patch");
      String queue = uniqueName("bulk-patch");
      budgets.define(key, whileInFlight(5));
      String bound = id(server.enqueue(boundJob(queue, key)));
      String free = server.enqueueId(queue);

      Reply reply = budgets.sendJson("PATCH", "/jobs/budgets/" + encode(key) + "?queue=" + queue,
          "{\"cost\":4}");

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(bound).get("budgets")).isEqualTo(echoed(key, 4));
      assertThat(server.getJob(free).has("budgets")).isFalse();
      assertError(budgets.sendJson("PATCH", "/jobs/budgets/" + encode(key) + "?queue=" + queue,
          "{\"cost\":6}"), 422, "cost 6 exceeds budget '" + key + "', which holds at most 5");
    }

    @Test
    void patchForAMissingBudgetChangesNothing() {
      Reply reply = budgets.sendJson("PATCH", "/jobs/budgets/" + uniqueName("bulk-none")
          + "?queue=" + uniqueName("bulk-none"), "{\"cost\":2}");

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json()).isEqualTo(bulkResult(0));
    }

    @Test
    void deleteUnbindsOneKeyOrAll() {
      String a = uniqueName("bulk-del-a");
      String b = uniqueName("bulk-del-b");
      String queue = uniqueName("bulk-del");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String both = id(server.enqueue(boundJob(queue, binding(a), binding(b))));
      String onlyB = id(server.enqueue(boundJob(queue, b)));
      String free = server.enqueueId(queue);

      Reply one = server.send("DELETE", "/jobs/budgets/" + encode(a) + "?queue=" + queue, null);
      assertThat(one.status()).as("%s", one).isEqualTo(200);
      assertThat(one.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(both).get("budgets")).isEqualTo(echoed(b, 1));

      Reply all = server.send("DELETE", "/jobs/budgets?queue=" + queue, null);
      assertThat(all.status()).as("%s", all).isEqualTo(200);
      assertThat(all.json()).isEqualTo(bulkResult(2));
      for (String jobId : new String[] {both, onlyB, free}) {
        assertThat(server.getJob(jobId).has("budgets")).isFalse();
      }
    }

    @Test
    void inFlightJobsAreReportedAsBlockedAndLeftAlone() {
      String key = uniqueName("bulk-blocked");
      String queue = uniqueName("bulk-blocked");
      budgets.define(key, whileInFlight(5));
      try (Taken taken = server.takeOne(boundJob(queue, key))) {
        String ready = id(server.enqueue(boundJob(queue, key).put("priority", 1)));

        Reply reply = server.send("DELETE", "/jobs/budgets/" + encode(key) + "?queue=" + queue,
            null);

        assertThat(reply.status()).as("%s", reply).isEqualTo(200);
        assertThat(reply.json()).isEqualTo(bulkResult(1, taken.id()));
        assertThat(server.getJob(taken.id()).get("budgets")).isEqualTo(echoed(key, 1));
        assertThat(server.getJob(ready).has("budgets")).isFalse();
        server.ack(taken.id());
      }
    }

    @Test
    void budgetsKeyAndIdFiltersNarrowTheSelection() {
      String a = uniqueName("bulk-filter-a");
      String b = uniqueName("bulk-filter-b");
      String queue = uniqueName("bulk-filter");
      budgets.define(a, whileInFlight(5));
      budgets.define(b, whileInFlight(5));
      String onA = id(server.enqueue(boundJob(queue, a)));
      String free = server.enqueueId(queue);
      String alsoFree = server.enqueueId(queue);

      Reply byKey = server.send("POST", "/jobs/budgets/" + encode(b) + "?queue=" + queue
          + "&budgets.key=" + encode(a), null);
      assertThat(byKey.status()).as("%s", byKey).isEqualTo(200);
      assertThat(byKey.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(onA).get("budgets")).isEqualTo(echoed(a, 1, b, 1));
      assertThat(server.getJob(free).has("budgets")).isFalse();

      Reply byId = server.send("POST", "/jobs/budgets/" + encode(b) + "?id=" + free, null);
      assertThat(byId.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(free).get("budgets")).isEqualTo(echoed(b, 1));
      assertThat(server.getJob(alsoFree).has("budgets")).isFalse();
    }

    @Test
    void jqAndRangeFiltersNarrowTheSelection() {
      String key = uniqueName("bulk-jq");
      String queue = uniqueName("bulk-jq");
      budgets.define(key, whileInFlight(5));
      ObjectNode red = job(queue, "work");
      red.putObject("payload").put("colour", "red");
      ObjectNode blue = job(queue, "work");
      blue.putObject("payload").put("colour", "blue");
      String redLow = id(server.enqueue(red.deepCopy().put("priority", 10)));
      String redHigh = id(server.enqueue(red.deepCopy().put("priority", 900)));
      String blueLow = id(server.enqueue(blue.deepCopy().put("priority", 10)));

      Reply byJq = server.send("POST", "/jobs/budgets/" + encode(key) + "?queue=" + queue
          + "&filter=" + encode(".colour == \"red\"") + "&priority=..100", null);

      assertThat(byJq.status()).as("%s", byJq).isEqualTo(200);
      assertThat(byJq.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(redLow).get("budgets")).isEqualTo(echoed(key, 1));
      assertThat(server.getJob(redHigh).has("budgets")).isFalse();
      assertThat(server.getJob(blueLow).has("budgets")).isFalse();

      Reply unbind = server.send("DELETE", "/jobs/budgets?queue=" + queue
          + "&filter=" + encode(".colour | startswith(\"re\")"), null);
      assertThat(unbind.json()).isEqualTo(bulkResult(1));
      assertThat(server.getJob(redLow).has("budgets")).isFalse();
      assertErrorStartingWith(server.send("DELETE", "/jobs/budgets?filter=" + encode("(("),
          null), 400, "invalid filter: ");
    }

    @Test
    void validationIsUpFrontAndRejectsTheWholeCall() {
      String missing = uniqueName("bulk-missing");
      String queue = uniqueName("bulk-missing");
      String jobId = server.enqueueId(queue);

      assertError(server.send("POST", "/jobs/budgets/" + encode(missing) + "?queue=" + queue,
          null), 422, "budget '" + missing
          + "' does not exist and no create_with policy was supplied to create it with");
      assertThat(server.getJob(jobId).has("budgets")).isFalse();

      ObjectNode body = JSON.createObjectNode();
      body.set("create_with", whileInFlight(3));
      Reply created = budgets.sendJson("POST",
          "/jobs/budgets/" + encode(missing) + "?queue=" + queue, body);
      assertThat(created.json()).isEqualTo(bulkResult(1));
      assertThat(budgets.fetch(missing).get("allocation").intValue()).isEqualTo(3);
    }

    @Test
    void terminalStatusFilterAndUnknownParametersAreRejected() {
      String key = uniqueName("bulk-status");
      budgets.define(key, whileInFlight(3));

      assertError(server.send("DELETE", "/jobs/budgets/" + encode(key) + "?status=completed",
          null), 422, "cannot change budgets of jobs in completed status");
      assertError(server.send("POST", "/jobs/budgets/" + encode(key) + "?status=dead", null),
          422, "cannot change budgets of jobs in dead status");
      assertErrorStartingWith(server.send("DELETE", "/jobs/budgets?colour=red", null), 400,
          "invalid query parameters: ");
      assertErrorStartingWith(
          budgets.sendJson("PATCH", "/jobs/budgets/" + encode(key), "{\"cost\":\"x\"}"), 400,
          "invalid JSON: ");
    }
  }
}
