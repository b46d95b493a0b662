package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.bindingCreating;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.QueryClient.count;
import static io.sluice.cli.http.QueryClient.enc;
import static io.sluice.cli.http.QueryClient.ids;
import static io.sluice.cli.http.QueryClient.list;
import static io.sluice.cli.http.QueryClient.listIds;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Job filters of {@code GET /jobs} and {@code GET /jobs/count} (API.md §3.4, §3.8, §4.7, §7.1,
 * §7.2, §8.9, §8.10): every filter alone and combined, range syntax, jq filters, both orders,
 * limits and the 400 answers.
 *
 * <p>The filter cases run against one data set, created once (see {@link Data}), of six jobs in
 * two queues of their own whose ids ascend in label order:
 *
 * <pre>
 * label queue type prio  ready_at  attempts status     payload             budgets
 * a0    qA    tA   0     +1 h      1        scheduled  {"n":0,"tag":"red"}
 * a1    qA    tA   10    1000      0        ready      {"n":1,"tag":"red"}
 * a2    qA    tB   20    2000      0        ready      {"n":2,"tag":"blue"} k2
 * b3    qB    tA   30    3000      0        ready      {"n":3,"tag":"red"}
 * b4    qB    tB   65535 +2 h      0        scheduled  {"n":4}
 * b5    qB    tB   32768 now       0        ready      "text"              k1
 * </pre>
 */
class QueryFilterHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final List<String> ALL = List.of("a0", "a1", "a2", "b3", "b4", "b5");
  /** Scopes a query to the data set's two queues. */
  static final String S = "queue={qA},{qB}";

  /** The data set: names by placeholder ({@code qA}, {@code tA}, {@code k1}, …) and job ids. */
  record Data(Map<String, String> names, Map<String, String> ids) {
    String id(String label) {
      return ids.get(label);
    }

    List<String> ids(List<String> labels) {
      return labels.stream().map(ids::get).toList();
    }

    /** Replaces {@code {name}} placeholders and percent-encodes each value of {@code query}. */
    String query(String template) {
      if (template.isEmpty()) {
        return template;
      }
      List<String> out = new ArrayList<>();
      for (String pair : template.split("&")) {
        int eq = pair.indexOf('=');
        String name = pair.substring(0, eq);
        String value = substitute(pair.substring(eq + 1));
        out.add(name + "=" + enc(value).replace("%2C", ","));
      }
      return String.join("&", out);
    }

    String substitute(String text) {
      String result = text;
      for (Map.Entry<String, String> e : names.entrySet()) {
        result = result.replace("{" + e.getKey() + "}", e.getValue());
      }
      for (Map.Entry<String, String> e : ids.entrySet()) {
        result = result.replace("{" + e.getKey() + "}", e.getValue());
      }
      return result;
    }
  }

  private static Data data;
  static long futureMs;

  /** Creates the data set on first use; every test of the class shares it and changes nothing. */
  static synchronized Data data() {
    if (data != null) {
      return data;
    }
    Map<String, String> names = new LinkedHashMap<>();
    for (String name : List.of("qA", "qB", "tA", "tB", "k1", "k2")) {
      names.put(name, uniqueName("filter-" + name));
    }
    Map<String, String> ids = new LinkedHashMap<>();
    long now = System.currentTimeMillis();
    futureMs = now + 3_600_000;

    // a0 first, alone in qA: taken and failed with a retry far ahead -> scheduled, attempts 1.
    ObjectNode a0 = job(names.get("qA"), names.get("tA")).put("priority", 0);
    a0.putObject("payload").put("n", 0).put("tag", "red");
    try (Taken taken = server.takeOne(a0)) {
      JsonNode failed = server.fail(taken.id(),
          JSON.createObjectNode().put("message", "later").put("retry_at", futureMs));
      assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
      ids.put("a0", taken.id());
    }
    ObjectNode a1 = job(names.get("qA"), names.get("tA")).put("priority", 10)
        .put("ready_at", 1000);
    a1.putObject("payload").put("n", 1).put("tag", "red");
    ids.put("a1", id(server.enqueue(a1)));
    ObjectNode a2 = boundJob(names.get("qA"), bindingCreating(names.get("k2"), whileInFlight(10)));
    a2.put("type", names.get("tB")).put("priority", 20).put("ready_at", 2000);
    a2.putObject("payload").put("n", 2).put("tag", "blue");
    ids.put("a2", id(server.enqueue(a2)));
    ObjectNode b3 = job(names.get("qB"), names.get("tA")).put("priority", 30)
        .put("ready_at", 3000);
    b3.putObject("payload").put("n", 3).put("tag", "red");
    ids.put("b3", id(server.enqueue(b3)));
    ObjectNode b4 = job(names.get("qB"), names.get("tB")).put("priority", 65535)
        .put("ready_at", now + 7_200_000);
    b4.putObject("payload").put("n", 4);
    ids.put("b4", id(server.enqueue(b4)));
    ObjectNode b5 = boundJob(names.get("qB"), bindingCreating(names.get("k1"), whileInFlight(10)));
    b5.put("type", names.get("tB")).put("payload", "text");
    ids.put("b5", id(server.enqueue(b5)));

    List<String> sorted = new ArrayList<>(ids.values());
    Collections.sort(sorted);
    assertThat(sorted).as("ids ascend in creation order").containsExactlyElementsOf(ids.values());
    data = new Data(names, ids);
    // The data set as seen through the API, once, as a sanity check of the setup.
    assertThat(listIds(server, data.query(S))).containsExactlyElementsOf(data.ids(ALL));
    return data;
  }

  static Arguments filterCase(String query, String... labels) {
    return Arguments.of(query, Arrays.asList(labels));
  }

  static Stream<Arguments> filterCases() {
    return Stream.of(
        // sets: queue, type, id, status, budgets.key
        filterCase("queue={qA}", "a0", "a1", "a2"),
        filterCase("queue={qB}", "b3", "b4", "b5"),
        filterCase("queue={qB},{qA}", ALL.toArray(String[]::new)),
        filterCase("queue=,{qB},,{qA},", ALL.toArray(String[]::new)),
        filterCase("queue={qA},no-such-queue", "a0", "a1", "a2"),
        filterCase("type={tA}", "a0", "a1", "b3"),
        filterCase("type={tB},{tA}", ALL.toArray(String[]::new)),
        filterCase("id={a1},{b3}", "a1", "b3"),
        filterCase("id={b5},{a0},{b5}", "a0", "b5"),
        filterCase("id={a1},0000000000000000000000000", "a1"),
        filterCase(S + "&status=ready", "a1", "a2", "b3", "b5"),
        filterCase(S + "&status=scheduled", "a0", "b4"),
        filterCase(S + "&status=in_flight,scheduled", "a0", "b4"),
        filterCase(S + "&status=completed,dead"),
        filterCase(S + "&status=ready,scheduled,in_flight,completed,dead",
            ALL.toArray(String[]::new)),
        filterCase(S + "&status=", ALL.toArray(String[]::new)),
        filterCase("budgets.key={k1}", "b5"),
        filterCase("budgets.key={k2},{k1}", "a2", "b5"),
        filterCase(S + "&budgets.key=no-such-budget"),
        // ranges
        filterCase(S + "&priority=10", "a1"),
        filterCase(S + "&priority=10..30", "a1", "a2", "b3"),
        filterCase(S + "&priority=..10", "a0", "a1"),
        filterCase(S + "&priority=30..", "b3", "b4", "b5"),
        filterCase(S + "&priority=..", ALL.toArray(String[]::new)),
        filterCase(S + "&priority=", ALL.toArray(String[]::new)),
        filterCase(S + "&priority=65535", "b4"),
        filterCase(S + "&priority=0..65535", ALL.toArray(String[]::new)),
        filterCase(S + "&priority=32768", "b5"),
        filterCase(S + "&priority=0..0", "a0"),
        filterCase(S + "&priority=11..19"),
        filterCase(S + "&ready_at=1000..2000", "a1", "a2"),
        filterCase(S + "&ready_at=..3000", "a1", "a2", "b3"),
        filterCase(S + "&ready_at=3001..", "a0", "b4", "b5"),
        filterCase(S + "&ready_at=2000", "a2"),
        filterCase(S + "&ready_at=1001..1999"),
        filterCase(S + "&ready_at=18446744073709551615"),
        filterCase(S + "&ready_at=0..18446744073709551615", ALL.toArray(String[]::new)),
        filterCase(S + "&ready_at=..", ALL.toArray(String[]::new)),
        filterCase(S + "&attempts=1", "a0"),
        filterCase(S + "&attempts=0", "a1", "a2", "b3", "b4", "b5"),
        filterCase(S + "&attempts=1..", "a0"),
        filterCase(S + "&attempts=..0", "a1", "a2", "b3", "b4", "b5"),
        filterCase(S + "&attempts=2..4294967295"),
        filterCase(S + "&attempts=", ALL.toArray(String[]::new)),
        // jq on the payload
        filterCase(S + "&filter=.tag == \"red\"", "a0", "a1", "b3"),
        filterCase(S + "&filter=.n >= 2", "a2", "b3", "b4"),
        filterCase(S + "&filter=.tag", "a0", "a1", "a2", "b3"),
        filterCase(S + "&filter=.n == 0, .n == 4", "a0", "b4"),
        filterCase(S + "&filter=empty"),
        filterCase(S + "&filter=false"),
        filterCase(S + "&filter=null"),
        filterCase(S + "&filter=0", ALL.toArray(String[]::new)),
        filterCase(S + "&filter=error(\"boom\")"),
        filterCase(S + "&filter=type == \"string\"", "b5"),
        filterCase(S + "&filter=.missing.deeper"),
        filterCase(S + "&filter=.n | tostring | test(\"^[13]$\")", "a1", "b3"),
        filterCase(S + "&filter=", ALL.toArray(String[]::new)),
        // combinations: AND across parameters
        filterCase("queue={qA}&type={tA}", "a0", "a1"),
        filterCase(S + "&type={tB}&priority=..100", "a2"),
        filterCase(S + "&status=ready&filter=.tag == \"red\"", "a1", "b3"),
        filterCase(S + "&status=scheduled,ready&attempts=1", "a0"),
        filterCase("id={a1},{b3},{b5}&queue={qB}", "b3", "b5"),
        filterCase("budgets.key={k1},{k2}&queue={qA}", "a2"),
        filterCase("type={tA}&ready_at=..3000", "a1", "b3"),
        filterCase("id={a0},{a1}&queue={qB}"),
        filterCase("queue={qA}&type={tB}&status=scheduled"),
        filterCase("queue={qA},{qB}&type={tA},{tB}&status=ready,scheduled&priority=1..40000"
            + "&ready_at=1..&attempts=0&filter=.n >= 1", "a1", "a2", "b3"),
        filterCase("id={a0},{a2},{b4},{b5}&budgets.key={k1},{k2}&filter=.n", "a2"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("filterCases")
  void listsAndCountsExactlyTheMatchingJobs(String template, List<String> labels) {
    Data d = data();
    String query = d.query(template);
    List<String> expected = d.ids(labels);

    assertThat(listIds(server, query)).as("asc %s", query).containsExactlyElementsOf(expected);
    List<String> reversed = new ArrayList<>(expected);
    Collections.reverse(reversed);
    assertThat(listIds(server, query + "&order=desc")).as("desc %s", query)
        .containsExactlyElementsOf(reversed);
    assertThat(listIds(server, query + "&order=asc")).as("explicit asc %s", query)
        .containsExactlyElementsOf(expected);
    assertThat(count(server, query)).as("count %s", query).isEqualTo(expected.size());
  }

  static Arguments aloneCase(String query, Predicate<JsonNode> holds, String... labels) {
    return Arguments.of(query, holds, Arrays.asList(labels));
  }

  static Stream<Arguments> aloneCases() {
    return Stream.of(
        aloneCase("status=scheduled", j -> j.get("status").textValue().equals("scheduled"),
            "a0", "b4"),
        aloneCase("status=ready", j -> j.get("status").textValue().equals("ready"),
            "a1", "a2", "b3", "b5"),
        aloneCase("priority=65535", j -> j.get("priority").intValue() == 65535, "b4"),
        aloneCase("priority=..10", j -> j.get("priority").intValue() <= 10, "a0", "a1"),
        aloneCase("ready_at=1000..2000",
            j -> j.get("ready_at").longValue() >= 1000 && j.get("ready_at").longValue() <= 2000,
            "a1", "a2"),
        aloneCase("attempts=1..", j -> j.get("attempts").longValue() >= 1, "a0"),
        aloneCase("filter=.tag == \"red\"",
            j -> j.get("payload").isObject() && "red".equals(j.get("payload").path("tag")
                .textValue()), "a0", "a1", "b3"));
  }

  /** A filter alone (no queue scope) over the whole server: every job listed satisfies it. */
  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("aloneCases")
  void filterAloneOverEveryQueue(String template, Predicate<JsonNode> holds,
      List<String> labels) {
    Data d = data();
    String query = d.query(template);

    JsonNode page = list(server, query + "&limit=2000");

    assertThat(page.get("pages").get("next").isNull()).as("one page").isTrue();
    for (JsonNode job : page.get("jobs")) {
      assertThat(holds.test(job)).as("%s matches %s", job, query).isTrue();
    }
    assertThat(ids(page)).containsAll(d.ids(labels));
    assertThat(count(server, query)).isEqualTo(page.get("jobs").size());
  }

  @Test
  void emptyValuesOfEveryFilterMeanNoFilter() {
    data();
    String empty = "queue=&type=&id=&status=&budgets.key=&priority=&ready_at=&attempts=&filter=";

    long all = count(server, "");

    assertThat(count(server, empty)).isEqualTo(all);
    assertThat(listIds(server, empty)).containsExactlyElementsOf(listIds(server, ""));
    assertThat(all).isGreaterThanOrEqualTo(ALL.size());
  }

  @Test
  void listedJobsHaveThePayloadShape() {
    Data d = data();

    JsonNode page = list(server, d.query("id={a2},{b5}"));

    JsonNode a2 = page.get("jobs").get(0);
    assertThat(EnqueueHttpTest.fieldNames(a2)).containsExactlyInAnyOrder("id", "type", "queue",
        "priority", "status", "payload", "ready_at", "attempts", "budgets");
    assertThat(a2.get("payload")).isEqualTo(JSON.createObjectNode().put("n", 2).put("tag", "blue"));
    assertThat(a2.get("budgets")).isEqualTo(BudgetClient.echoed(d.names().get("k2"), 1));
    assertThat(a2.get("ready_at").longValue()).isEqualTo(2000);
    assertThat(a2.get("priority").intValue()).isEqualTo(20);
    JsonNode b5 = page.get("jobs").get(1);
    assertThat(b5.get("payload").textValue()).isEqualTo("text");
    assertThat(b5.get("priority").intValue()).isEqualTo(32768);
  }

  @Test
  void messagePackListingCarriesTheSameDocument() {
    Data d = data();
    String query = d.query(S + "&limit=4");
    JsonNode asJson = list(server, query);

    Reply reply = server.get("/jobs?" + query, "Accept", MSGPACK_TYPE);

    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
    JsonNode asMsgpack = reply.msgpack();
    assertThat(asMsgpack).isEqualTo(asJson);
    assertThat(asMsgpack.get("jobs").get(0).get("ready_at").isIntegralNumber()).isTrue();
    assertThat(asMsgpack.get("pages").get("prev").isNull()).isTrue();
    assertThat(asMsgpack.get("pages").get("next").isTextual()).isTrue();
  }

  @Test
  void countAnswersMessagePackToo() {
    Data d = data();

    Reply reply = server.get("/jobs/count?" + d.query(S), "Accept", MSGPACK_TYPE);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
    assertThat(reply.msgpack()).isEqualTo(JSON.createObjectNode().put("count", 6));
  }

  @Nested
  class Limits {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5, 6, 2000})
    void limitBoundsThePage(int limit) {
      Data d = data();

      JsonNode page = list(server, d.query(S) + "&limit=" + limit);

      List<String> expected = d.ids(ALL).subList(0, Math.min(limit, ALL.size()));
      assertThat(ids(page)).containsExactlyElementsOf(expected);
      assertThat(page.get("pages").get("next").isNull()).isEqualTo(limit >= ALL.size());
    }

    @Test
    void defaultLimitIsFifty() {
      String queue = uniqueName("default-limit");
      ObjectNode bulk = JSON.createObjectNode();
      for (int i = 0; i < 51; i++) {
        bulk.withArray("jobs").add(job(queue, "work"));
      }
      assertThat(server.postJson("/jobs/bulk", bulk).status()).isEqualTo(201);

      JsonNode page = list(server, "queue=" + queue);

      assertThat(page.get("jobs").size()).isEqualTo(50);
      assertThat(page.get("pages").get("next").isTextual()).isTrue();
      assertThat(page.get("pages").get("self").textValue()).contains("limit=50");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "2001"})
    void limitOutsideOneToTwoThousandIsRejected(String limit) {
      Reply reply = server.get("/jobs?limit=" + limit);

      BudgetClient.assertError(reply, 400, "limit must be between 1 and 2000");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "99999999999", "1.5", "65536"})
    void unparsableLimitIsRejected(String limit) {
      Reply reply = server.get("/jobs?limit=" + limit);

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).isNotEmpty();
    }
  }

  @Nested
  class Rejections {
    static Stream<Arguments> exactErrors() {
      return Stream.of(
          Arguments.of("id=nope", "invalid job ID: \"nope\""),
          Arguments.of("id=ABCDEFGHIJKLMNOPQRSTUVWXY", "invalid job ID: \"ABCDEFGHIJKLMNOPQRSTUVWXY\""),
          Arguments.of("id=0000000000000000000000000,000000000000000000000000",
              "invalid job ID: \"000000000000000000000000\""),
          Arguments.of("id=00000000000000000000000000", "invalid job ID: \"00000000000000000000000000\""),
          Arguments.of("id=000000000000000000000000-", "invalid job ID: \"000000000000000000000000-\""),
          Arguments.of("status=bogus", "invalid query parameters: unknown status: bogus"),
          Arguments.of("status=ready,Ready", "invalid query parameters: unknown status: Ready"),
          Arguments.of("status=inflight", "invalid query parameters: unknown status: inflight"),
          Arguments.of("priority=5..1",
              "invalid query parameters: range lower bound exceeds upper bound"),
          Arguments.of("attempts=3..2",
              "invalid query parameters: range lower bound exceeds upper bound"),
          Arguments.of("ready_at=10..9",
              "invalid query parameters: range lower bound exceeds upper bound"),
          Arguments.of("priority=65535..0",
              "invalid query parameters: range lower bound exceeds upper bound"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("exactErrors")
    void listingRejectsWithExactMessage(String query, String message) {
      BudgetClient.assertError(server.get("/jobs?" + query), 400, message);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("exactErrors")
    void countRejectsWithExactMessage(String query, String message) {
      BudgetClient.assertError(server.get("/jobs/count?" + query), 400, message);
    }

    static Stream<String> malformedRanges() {
      return Stream.of("priority=abc", "priority=1..x", "priority=x..1", "priority=-1",
          "priority=1.5", "priority=1...2", "priority=1..2..3", "priority=%201", "priority=0x10",
          "priority=%2B5", "priority=65536", "priority=0..65536", "priority=70000..",
          "priority=.", "priority=...", "attempts=4294967296",
          "attempts=..4294967296", "attempts=-", "ready_at=18446744073709551616",
          "ready_at=now", "ready_at=1e3");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("malformedRanges")
    void malformedRangeIsRejected(String query) {
      for (String path : List.of("/jobs?", "/jobs/count?")) {
        Reply reply = server.get(path + query);

        BudgetClient.assertErrorStartingWith(reply, 400, "invalid query parameters: ");
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {".[", "map(", "\"unterminated", ".a |", ")", "if true then 1"})
    void uncompilableJqIsRejected(String expression) {
      for (String path : List.of("/jobs?filter=", "/jobs/count?filter=")) {
        Reply reply = server.get(path + enc(expression));

        BudgetClient.assertErrorStartingWith(reply, 400, "invalid filter: ");
      }
    }

    @Test
    void idFilterAcceptsAnyTwentyFiveLowercaseAlphanumerics() {
      String lowest = "0000000000000000000000000";
      String highest128 = "f5lxx1zz5pnorynqglhzmsp33";

      assertThat(listIds(server, "id=" + lowest + "," + highest128)).isEmpty();
      assertThat(count(server, "id=" + lowest + "," + highest128)).isZero();
    }

    @Test
    void idFilterAcceptsIdsBeyondOneHundredTwentyEightBits() {
      String id = "zzzzzzzzzzzzzzzzzzzzzzzzz";

      assertThat(listIds(server, "id=" + id)).isEmpty();
      assertThat(count(server, "id=" + id)).isZero();
    }

    @Test
    void fullwidthLettersAreNotAnId() {
      String id = "\uff41" + "0".repeat(24);

      BudgetClient.assertError(server.get("/jobs?id=" + enc(id)), 400,
          "invalid job ID: \"" + id + "\"");
      BudgetClient.assertError(server.get("/jobs/count?id=" + enc(id)), 400,
          "invalid job ID: \"" + id + "\"");
    }

    @Test
    void nonAsciiDigitsAreNotNumbers() {
      for (String path : List.of("/jobs?", "/jobs/count?")) {
        Reply reply = server.get(path + "priority=%D9%A1");

        BudgetClient.assertErrorStartingWith(reply, 400, "invalid query parameters: ");
      }
    }

    @Test
    void undefinedJqFunctionIsACompileError() {
      Reply reply = server.get("/jobs?filter=" + enc("no_such_function(1)"));

      BudgetClient.assertErrorStartingWith(reply, 400, "invalid filter: ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"foo=1", "Queue=x", "budgets=x", "page=2", "queue=x&statuses=ready",
        "budget.key=k", "filters=.a", "ID=x"})
    void unknownParameterIsRejected(String query) {
      for (String path : List.of("/jobs?", "/jobs/count?")) {
        Reply reply = server.get(path + query);

        BudgetClient.assertErrorStartingWith(reply, 400, "invalid query parameters: ");
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {"order=asc", "order=desc", "limit=10", "from=0000000000000000000000000"})
    void countRejectsPaginationParameters(String query) {
      Reply reply = server.get("/jobs/count?" + query);

      BudgetClient.assertErrorStartingWith(reply, 400, "invalid query parameters: ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"order=sideways", "order=DESC", "order=ascending"})
    void unknownOrderIsRejected(String query) {
      Reply reply = server.get("/jobs?" + query);

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"nope", "ABCDEFGHIJKLMNOPQRSTUVWXY", "0000000000000000000000000000"})
    void malformedCursorIsRejected(String from) {
      Reply reply = server.get("/jobs?from=" + from);

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).isNotEmpty();
    }

    @Test
    void unacceptableAcceptIsNotAcceptable() {
      for (String path : List.of("/jobs", "/jobs/count", "/queues")) {
        Reply reply = server.get(path, "Accept", "text/html");

        assertThat(reply.status()).as("%s %s", path, reply).isEqualTo(406);
        ObjectNode expected = JSON.createObjectNode().put("error", "not acceptable");
        expected.putArray("supported").add("application/json").add(MSGPACK_TYPE);
        assertThat(reply.json()).isEqualTo(expected);
      }
    }

    @Test
    void errorIsMessagePackWhenAsked() {
      Reply reply = server.get("/jobs?id=nope", "Accept", MSGPACK_TYPE);

      BudgetClient.assertMsgpackError(reply, 400, "invalid job ID: \"nope\"");
    }
  }
}
