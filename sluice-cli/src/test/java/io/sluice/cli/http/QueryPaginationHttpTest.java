package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.bindingCreating;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.QueryClient.enc;
import static io.sluice.cli.http.QueryClient.follow;
import static io.sluice.cli.http.QueryClient.ids;
import static io.sluice.cli.http.QueryClient.linkParams;
import static io.sluice.cli.http.QueryClient.list;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Cursor pagination of {@code GET /jobs} (API.md §7.3, §8.9): {@code self}, {@code next} and
 * {@code prev} links, the reversed order of {@code prev}, the exclusive cursor, and filters echoed
 * in canonical form. Each test uses queues of its own.
 */
class QueryPaginationHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  /** Six jobs, alternating between two new queues; returns their ids in creation order. */
  static List<String> sixJobs(String qa, String qb) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ObjectNode request = job(i % 2 == 0 ? qa : qb, "page");
      request.putObject("payload").put("n", i);
      ids.add(id(server.enqueue(request)));
    }
    return ids;
  }

  static List<String> reversed(List<String> list) {
    List<String> copy = new ArrayList<>(list);
    java.util.Collections.reverse(copy);
    return copy;
  }

  static JsonNode pages(JsonNode page) {
    JsonNode pages = page.get("pages");
    assertThat(pages).as("pages in %s", page).isNotNull();
    assertThat(pages.has("self") && pages.has("next") && pages.has("prev"))
        .as("all three links present in %s", pages).isTrue();
    assertThat(pages.size()).isEqualTo(3);
    return pages;
  }

  static String link(JsonNode page, String name) {
    JsonNode link = pages(page).get(name);
    assertThat(link.isTextual()).as("%s link of %s", name, page.get("pages")).isTrue();
    return link.textValue();
  }

  static void assertNoLink(JsonNode page, String name) {
    assertThat(pages(page).get(name).isNull()).as("%s link of %s is null", name,
        page.get("pages")).isTrue();
  }

  @Test
  void ascendingWalkForwardAndBack() {
    String qa = uniqueName("pg-a");
    String qb = uniqueName("pg-b");
    List<String> j = sixJobs(qa, qb);
    String sets = "&queue=" + qa + "," + qb; // uniqueName numbers grow: already sorted

    JsonNode first = list(server, "queue=" + qb + "," + qa + "&limit=2");

    assertThat(ids(first)).containsExactly(j.get(0), j.get(1));
    assertThat(link(first, "self")).isEqualTo("/jobs?order=asc&limit=2" + sets);
    assertThat(link(first, "next"))
        .isEqualTo("/jobs?from=" + j.get(1) + "&order=asc&limit=2" + sets);
    assertNoLink(first, "prev");

    JsonNode second = follow(server, link(first, "next"));
    assertThat(ids(second)).containsExactly(j.get(2), j.get(3));
    assertThat(link(second, "self")).isEqualTo(link(first, "next"));
    assertThat(link(second, "next"))
        .isEqualTo("/jobs?from=" + j.get(3) + "&order=asc&limit=2" + sets);
    assertThat(link(second, "prev"))
        .isEqualTo("/jobs?from=" + j.get(2) + "&order=desc&limit=2" + sets);

    JsonNode back = follow(server, link(second, "prev"));
    assertThat(ids(back)).containsExactly(j.get(1), j.get(0));
    assertNoLink(back, "next");
    assertThat(link(back, "prev"))
        .isEqualTo("/jobs?from=" + j.get(1) + "&order=asc&limit=2" + sets);
    assertThat(ids(follow(server, link(back, "prev")))).containsExactly(j.get(2), j.get(3));

    JsonNode third = follow(server, link(second, "next"));
    assertThat(ids(third)).containsExactly(j.get(4), j.get(5));
    assertNoLink(third, "next");
    assertThat(link(third, "prev"))
        .isEqualTo("/jobs?from=" + j.get(4) + "&order=desc&limit=2" + sets);
  }

  @Test
  void descendingWalk() {
    String qa = uniqueName("pg-desc-a");
    String qb = uniqueName("pg-desc-b");
    List<String> j = sixJobs(qa, qb);
    String sets = "&queue=" + qa + "," + qb;

    JsonNode first = list(server, "order=desc&limit=4&queue=" + qa + "," + qb);

    assertThat(ids(first)).containsExactly(j.get(5), j.get(4), j.get(3), j.get(2));
    assertThat(link(first, "self")).isEqualTo("/jobs?order=desc&limit=4" + sets);
    assertThat(link(first, "next"))
        .isEqualTo("/jobs?from=" + j.get(2) + "&order=desc&limit=4" + sets);
    assertNoLink(first, "prev");

    JsonNode second = follow(server, link(first, "next"));
    assertThat(ids(second)).containsExactly(j.get(1), j.get(0));
    assertNoLink(second, "next");
    assertThat(link(second, "prev"))
        .isEqualTo("/jobs?from=" + j.get(1) + "&order=asc&limit=4" + sets);

    JsonNode forward = follow(server, link(second, "prev"));
    assertThat(ids(forward)).containsExactly(j.get(2), j.get(3), j.get(4), j.get(5));
    assertNoLink(forward, "next");
  }

  @Test
  void cursorIsExclusiveAndNeedNotBeAJob() {
    String queue = uniqueName("pg-cursor");
    List<String> j = sixJobs(queue, queue);

    JsonNode fromMiddle = list(server, "queue=" + queue + "&from=" + j.get(2));
    assertThat(ids(fromMiddle)).containsExactly(j.get(3), j.get(4), j.get(5));
    assertNoLink(fromMiddle, "next");
    assertThat(link(fromMiddle, "self"))
        .isEqualTo("/jobs?from=" + j.get(2) + "&order=asc&limit=50&queue=" + queue);
    assertThat(link(fromMiddle, "prev"))
        .isEqualTo("/jobs?from=" + j.get(3) + "&order=desc&limit=50&queue=" + queue);

    String lowest = "0000000000000000000000000";
    JsonNode fromLowest = list(server, "queue=" + queue + "&from=" + lowest);
    assertThat(ids(fromLowest)).containsExactlyElementsOf(j);
    assertThat(link(fromLowest, "prev"))
        .isEqualTo("/jobs?from=" + j.get(0) + "&order=desc&limit=50&queue=" + queue);

    // The largest 128-bit id (SCRU128 layout, API.md §3.4) in base 36.
    JsonNode fromHighestDesc =
        list(server, "queue=" + queue + "&order=desc&from=f5lxx1zz5pnorynqglhzmsp33");
    assertThat(ids(fromHighestDesc)).containsExactlyElementsOf(reversed(j));

    JsonNode descFromMiddle = list(server, "queue=" + queue + "&order=desc&from=" + j.get(3));
    assertThat(ids(descFromMiddle)).containsExactly(j.get(2), j.get(1), j.get(0));
  }

  @Test
  void emptyPageHasNeitherNextNorPrev() {
    String queue = uniqueName("pg-empty");
    List<String> j = sixJobs(queue, queue);

    JsonNode afterLast = list(server, "queue=" + queue + "&from=" + j.get(5));
    assertThat(ids(afterLast)).isEmpty();
    assertNoLink(afterLast, "next");
    assertNoLink(afterLast, "prev");
    assertThat(link(afterLast, "self"))
        .isEqualTo("/jobs?from=" + j.get(5) + "&order=asc&limit=50&queue=" + queue);

    JsonNode beforeFirst = list(server, "queue=" + queue + "&order=desc&from=" + j.get(0));
    assertThat(ids(beforeFirst)).isEmpty();
    assertNoLink(beforeFirst, "next");
    assertNoLink(beforeFirst, "prev");

    JsonNode nothing = list(server, "queue=" + uniqueName("pg-none"));
    assertThat(ids(nothing)).isEmpty();
    assertNoLink(nothing, "next");
    assertNoLink(nothing, "prev");
  }

  @Test
  void exactlyFullLastPageHasNoNext() {
    String queue = uniqueName("pg-full");
    List<String> j = sixJobs(queue, queue);

    JsonNode page = list(server, "queue=" + queue + "&limit=3&from=" + j.get(2));

    assertThat(ids(page)).containsExactly(j.get(3), j.get(4), j.get(5));
    assertNoLink(page, "next");
  }

  @Test
  void linksEchoEveryFilterCanonicallyAndReproduceTheListing() {
    String qa = uniqueName("pg-echo-a");
    String qb = uniqueName("pg-echo-b");
    String ta = uniqueName("pg-echo-ta");
    String tb = uniqueName("pg-echo-tb");
    String ky = uniqueName("pg-echo-ky");
    String kz = uniqueName("pg-echo-kz");
    List<String> j = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ObjectNode request = boundJob(i % 2 == 0 ? qa : qb, bindingCreating(ky, whileInFlight(10)));
      request.put("type", i < 2 ? ta : tb).put("priority", 10 + i);
      request.putObject("payload").put("n", i);
      j.add(id(server.enqueue(request)));
    }
    String jq = ".n >= 0 and (.n | tostring) != \"x&y=1\"";
    String query = "filter=" + enc(jq) + "&attempts=0&ready_at=1..&priority=10..40000"
        + "&id=" + j.get(3) + "," + j.get(1) + ",," + j.get(2) + "," + j.get(0) + "," + j.get(1)
        + "&budgets.key=" + kz + "," + ky + "&type=" + tb + "," + ta + "&queue=" + qb + "," + qa
        + "&status=scheduled,ready&limit=3";

    JsonNode first = list(server, query);

    assertThat(ids(first)).containsExactly(j.get(0), j.get(1), j.get(2));
    String self = link(first, "self");
    Map<String, String> params = linkParams(self);
    assertThat(params.keySet()).containsExactly("order", "limit", "status", "queue", "type", "id",
        "priority", "ready_at", "attempts", "budgets.key", "filter");
    assertThat(params).containsEntry("order", "asc")
        .containsEntry("limit", "3")
        .containsEntry("status", "ready,scheduled")
        .containsEntry("queue", qa + "," + qb)
        .containsEntry("type", ta + "," + tb)
        .containsEntry("id", String.join(",", j))
        .containsEntry("priority", "10..40000")
        .containsEntry("ready_at", "1..")
        .containsEntry("attempts", "0")
        .containsEntry("budgets.key", ky + "," + kz)
        .containsEntry("filter", jq);
    assertThat(follow(server, self)).isEqualTo(first);

    String next = link(first, "next");
    assertThat(next).isEqualTo("/jobs?from=" + j.get(2) + "&" + self.substring("/jobs?".length()));
    JsonNode second = follow(server, next);
    assertThat(ids(second)).containsExactly(j.get(3));
    assertNoLink(second, "next");
    String prev = link(second, "prev");
    assertThat(linkParams(prev)).containsEntry("from", j.get(3)).containsEntry("order", "desc")
        .containsEntry("filter", jq).containsEntry("id", String.join(",", j));
    assertThat(ids(follow(server, prev))).containsExactly(j.get(2), j.get(1), j.get(0));
  }

  @Test
  void linksPercentEncodeNamesThatNeedIt() {
    String queue = "pg q&x=1+é%" + uniqueName("");
    ObjectNode request = job(queue, "t&y");
    String first = id(server.enqueue(request));
    String second = id(server.enqueue(job(queue, "t&y")));
    String third = id(server.enqueue(job(queue, "t&y")));

    JsonNode page = list(server, "queue=" + enc(queue) + "&type=" + enc("t&y") + "&limit=2");

    assertThat(ids(page)).containsExactly(first, second);
    assertThat(linkParams(link(page, "self"))).containsEntry("queue", queue)
        .containsEntry("type", "t&y");
    JsonNode next = follow(server, link(page, "next"));
    assertThat(ids(next)).containsExactly(third);
    assertThat(linkParams(link(next, "prev"))).containsEntry("queue", queue);
  }

  @Test
  void rangesAreEchoedSoThatTheLinksSelectTheSameJobs() {
    String queue = uniqueName("pg-ranges");
    List<String> j = new ArrayList<>();
    for (int priority : new int[] {0, 5, 9, 10, 65535}) {
      j.add(id(server.enqueue(job(queue, "p").put("priority", priority))));
    }

    for (String range : List.of("5", "1..9", "..9", "9..", "0..65535", "5..5")) {
      JsonNode page = list(server, "queue=" + queue + "&priority=" + range + "&limit=1");

      String self = link(page, "self");
      String echoed = linkParams(self).get("priority");
      assertThat(echoed).as("priority=%s echoed in %s", range, self).isNotNull();
      if (range.equals("5") || range.equals("1..9")) {
        assertThat(echoed).isEqualTo(range);
      }
      JsonNode again = follow(server, self);
      assertThat(ids(again)).as("following %s", self).isEqualTo(ids(page));
      assertThat(pages(again).get("next").isNull()).isEqualTo(pages(page).get("next").isNull());
    }
    JsonNode tail = list(server, "queue=" + queue + "&priority=9..&limit=1");
    assertThat(ids(tail)).containsExactly(j.get(2));
    assertThat(ids(follow(server, link(tail, "next")))).containsExactly(j.get(3));
  }

  @Test
  void limitOfOneWalksEveryJobOnce() {
    String queue = uniqueName("pg-one");
    List<String> j = sixJobs(queue, queue);
    List<String> seen = new ArrayList<>();

    JsonNode page = list(server, "queue=" + queue + "&limit=1");
    for (int pagesLeft = 10; pagesLeft > 0; pagesLeft--) {
      seen.addAll(ids(page));
      if (pages(page).get("next").isNull()) {
        break;
      }
      page = follow(server, link(page, "next"));
    }

    assertThat(seen).containsExactlyElementsOf(j);
  }

  @Test
  void orderIsByIdNotPriority() {
    String queue = uniqueName("pg-id-order");
    List<String> j = new ArrayList<>();
    for (int priority : new int[] {500, 3, 65535, 0}) {
      j.add(id(server.enqueue(job(queue, "p").put("priority", priority))));
    }

    assertThat(ids(list(server, "queue=" + queue))).containsExactlyElementsOf(j);
    assertThat(ids(list(server, "queue=" + queue + "&order=desc")))
        .containsExactlyElementsOf(reversed(j));
  }
}
