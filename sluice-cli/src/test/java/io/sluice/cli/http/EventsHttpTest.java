package io.sluice.cli.http;

import static io.sluice.cli.http.EventsClient.ids;
import static io.sluice.cli.http.EventsClient.message;
import static io.sluice.cli.http.EventsClient.subscribe;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.HttpLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /events} on the admin listener (CLI.md §9, docs/events.md) against a real server:
 * each test has a server of its own, so that counts and lists hold only the jobs it made.
 */
class EventsHttpTest {
  private static final long HOUR_MS = 3_600_000;

  @TempDir Path tempDir;

  @Test
  void statusCountsEachStatusPerQueueAndSummedOverQueues() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      for (int i = 0; i < 3; i++) {
        server.enqueue("alpha", "work");
      }
      for (int i = 0; i < 2; i++) {
        server.enqueue(later("alpha"));
      }
      try (ServerFixture.Taken doomed = server.takeOne(job("beta", "doomed")
          .put("retry_limit", 0))) {
        server.fail(doomed.id(), ServerFixture.JSON.createObjectNode().put("message", "boom"));
      }
      try (ServerFixture.Taken running = server.takeOne("beta");
          EventsClient events = EventsClient.connect(server.adminPort())) {
        JsonNode status = events.await("status", s -> s.get("counts").get("dead").asLong() == 1
            && s.get("counts").get("in_flight").asLong() == 1);

        assertThat(status.get("counts").toString()).isEqualTo(
            "{\"scheduled\":2,\"ready\":3,\"in_flight\":1,\"completed\":0,\"dead\":1}");
        assertThat(status.get("queues").toString()).isEqualTo("["
            + "{\"queue\":\"alpha\",\"scheduled\":2,\"ready\":3,\"in_flight\":0,\"completed\":0,"
            + "\"dead\":0},"
            + "{\"queue\":\"beta\",\"scheduled\":0,\"ready\":0,\"in_flight\":1,\"completed\":0,"
            + "\"dead\":1}]");
        assertThat(status.get("server_version").textValue()).isEqualTo("0.1.0");
        assertThat(status.get("api_version").textValue()).isEqualTo("0.7.0");
        assertThat(status.get("uptime_ms").asLong()).isPositive();

        server.enqueue("alpha", "more");
        JsonNode changed = events.await("changed");
        assertThat(changed.get("statuses").toString()).isEqualTo("[\"ready\"]");
        assertThat(changed.get("queues").toString()).isEqualTo("[\"alpha\"]");
        JsonNode after = events.await("status");
        assertThat(after.get("counts").get("ready").asLong()).isEqualTo(4);
      }
    }
  }

  @Test
  void heartbeatsArriveEveryTwoSeconds() {
    try (ServerFixture server = ServerFixture.start(tempDir);
        EventsClient events = EventsClient.connect(server.adminPort())) {
      JsonNode first = events.await("heartbeat");
      long firstAt = System.nanoTime();
      JsonNode second = events.await("heartbeat");
      long gapMs = (System.nanoTime() - firstAt) / 1_000_000;

      assertThat(gapMs).isBetween(1_500L, 3_500L);
      assertThat(second.get("time").asLong() - first.get("time").asLong()).isBetween(1_500L,
          3_500L);
      assertThat(second.get("uptime_ms").asLong()).isGreaterThan(first.get("uptime_ms").asLong());
    }
  }

  @Test
  void eachTabListsOnlyItsStatusWithItsTotal() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      List<String> ready = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ready.add(server.enqueueId("q"));
      }
      String scheduled = id(server.enqueue(later("q")));
      try (ServerFixture.Taken running = server.takeOne("other");
          EventsClient events = EventsClient.connect(server.adminPort())) {
        JsonNode readyWindow = events.reply("window", events.send(subscribe("ready", 0, 10)));
        assertThat(ids(readyWindow)).isEqualTo(ready);
        assertThat(readyWindow.get("total").asLong()).isEqualTo(3);
        assertThat(readyWindow.get("jobs").get(0).get("job").get("payload").toString())
            .isEqualTo("{\"n\":1}");

        JsonNode inFlight = events.reply("window", events.send(subscribe("in_flight", 0, 10)));
        assertThat(ids(inFlight)).containsExactly(running.id());
        assertThat(inFlight.get("jobs").get(0).get("job").get("status").textValue())
            .isEqualTo("in_flight");

        JsonNode later = events.reply("window", events.send(subscribe("scheduled", 0, 10)));
        assertThat(ids(later)).containsExactly(scheduled);
        assertThat(later.get("total").asLong()).isEqualTo(1);
      }
    }
  }

  @Test
  void windowsPageThroughTheListFromEitherEndOrThePreviousWindow() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      List<String> all = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        all.add(id(server.enqueue(later("paged"))));
      }
      try (EventsClient events = EventsClient.connect(server.adminPort())) {
        JsonNode first = events.reply("window", events.send(subscribe("scheduled", 0, 10)));
        assertWindow(first, 0, all);
        assertThat(first.get("total").asLong()).isEqualTo(60);
        assertThat(first.get("limit").asLong()).isEqualTo(10);

        assertWindow(scroll(events, 30), 30, all); // read back from the end
        assertWindow(scroll(events, 27), 27, all); // back from the previous window
        assertWindow(scroll(events, 29), 29, all); // forward from the previous window
        assertWindow(scroll(events, 1_000), 50, all); // past the end: the last page
        assertWindow(scroll(events, 3), 3, all); // from the start
      }
    }
  }

  @Test
  void searchMarksMatchesCountsThemAndFindsTheNextAndPrevious() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      String euMail = id(server.enqueue("mail-eu", "email.send"));
      String usMail = id(server.enqueue("mail-us", "email.send"));
      String euPdf = id(server.enqueue("mail-eu", "pdf.render"));
      String digest = id(server.enqueue("render", "Email.Digest"));
      try (EventsClient events = EventsClient.connect(server.adminPort())) {
        ObjectNode subscribe = subscribe("ready", 0, 10);
        subscribe.putObject("search").put("types", "email").put("queues", "EU, render");
        long ref = events.send(subscribe);
        JsonNode window = events.await("window", w -> w.path("ref").asLong() == ref
            || w.get("matches").isIntegralNumber());
        assertThat(ids(window)).containsExactly(euMail, usMail, euPdf, digest);
        List<Boolean> marks = new ArrayList<>();
        window.get("jobs").forEach(row -> marks.add(row.get("match").booleanValue()));
        assertThat(marks).containsExactly(true, false, false, true);
        assertThat(window.get("search").toString())
            .isEqualTo("{\"types\":[\"email\"],\"queues\":[\"eu\",\"render\"]}");
        JsonNode counted = window.get("matches").isNull()
            ? events.await("window", w -> w.get("matches").isIntegralNumber()) : window;
        assertThat(counted.get("matches").asLong()).isEqualTo(2);

        JsonNode next = events.reply("found", events.send(find("next", euMail, 0)));
        assertThat(next.get("id").textValue()).isEqualTo(digest);
        assertThat(next.get("offset").asLong()).isEqualTo(3);
        JsonNode previous = events.reply("found", events.send(find("previous", digest, 3)));
        assertThat(previous.get("id").textValue()).isEqualTo(euMail);
        assertThat(previous.get("offset").asLong()).isZero();
        JsonNode none = events.reply("found", events.send(find("next", digest, 3)));
        assertThat(none.get("id").isNull()).isTrue();

        ObjectNode byQueue = message("search");
        byQueue.putObject("search").putArray("queues").add("us");
        JsonNode usOnly = events.reply("window", events.send(byQueue));
        assertThat(usOnly.get("matches").asLong()).isEqualTo(1);
      }
    }
  }

  @Test
  void deleteRemovesTheJobThroughTheEngineAndRefreshesTheWindow() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      String first = server.enqueueId("q");
      String doomed = server.enqueueId("q");
      String last = server.enqueueId("q");
      try (EventsClient events = EventsClient.connect(server.adminPort())) {
        assertThat(ids(events.reply("window", events.send(subscribe("ready", 0, 10)))))
            .containsExactly(first, doomed, last);

        JsonNode deleted = events.reply("deleted",
            events.send(message("delete").put("id", doomed)));
        assertThat(deleted.get("id").textValue()).isEqualTo(doomed);
        assertThat(server.get("/jobs/" + doomed).status()).isEqualTo(404);
        events.await("window", w -> ids(w).equals(List.of(first, last)));

        JsonNode again = events.reply("error", events.send(message("delete").put("id", doomed)));
        assertThat(again.get("status").asInt()).isEqualTo(404);
      }
    }
  }

  @Test
  void theBudgetsTabCarriesEachBudgetsLiveState() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      assertThat(server.postJson("/budgets/partner-api", "{\"allocation\":10,\"strategy\":"
          + "{\"type\":\"time_based\",\"duration_ms\":60000}}").status()).isEqualTo(201);
      try (EventsClient events = EventsClient.connect(server.adminPort())) {
        JsonNode first = events.reply("budgets", events.send(subscribe("budgets", 0, 10)));
        assertThat(first.get("total").asLong()).isEqualTo(1);
        JsonNode budget = first.get("budgets").get(0);
        assertThat(budget.get("key").textValue()).isEqualTo("partner-api");
        assertThat(budget.get("state").get("tokens").asLong()).isEqualTo(10);
        assertThat(budget.get("state").get("capacity").asLong()).isEqualTo(10);
        assertThat(budget.get("state").get("paused_until").isNull()).isTrue();

        ObjectNode bound = job("partner", "call");
        bound.putArray("budgets").addObject().put("key", "partner-api").put("cost", 1);
        server.enqueue(bound);
        JsonNode waiting = events.await("budgets", b -> b.get("budgets").get(0).get("state")
            .get("waiting").get("jobs").asLong() == 1);
        assertThat(waiting.get("budgets").get(0).get("state").get("waiting").get("cost")
            .asLong()).isEqualTo(1);
      }
    }
  }

  @Test
  void pausedListsAreNotRefreshedWhileCountsStillArrive() {
    try (ServerFixture server = ServerFixture.start(tempDir);
        EventsClient events = EventsClient.connect(server.adminPort())) {
      events.reply("window", events.send(subscribe("ready", 0, 10)));
      events.send(message("pause").put("paused", true));
      String added = server.enqueueId("q");
      events.await("status", s -> s.get("counts").get("ready").asLong() == 1);
      List<JsonNode> meanwhile = events.during(Duration.ofMillis(2_500));
      assertThat(meanwhile).noneMatch(m -> m.get("type").asText().equals("window"));

      JsonNode resumed = events.reply("window",
          events.send(message("pause").put("paused", false)));
      assertThat(ids(resumed)).containsExactly(added);
      assertThat(resumed.get("paused").booleanValue()).isFalse();
    }
  }

  @Test
  void malformedMessagesAreAnsweredWithErrorsAndTheConnectionStaysOpen() {
    try (ServerFixture server = ServerFixture.start(tempDir);
        EventsClient events = EventsClient.connect(server.adminPort())) {
      events.sendRaw("not json");
      assertThat(events.await("error").get("message").textValue())
          .isEqualTo("message is not JSON");
      long ref = events.send(subscribe("nowhere", 0, 10));
      assertThat(events.reply("error", ref).get("status").asInt()).isEqualTo(400);
      long tooMany = events.send(subscribe("ready", 0, 501));
      assertThat(events.reply("error", tooMany).get("message").textValue())
          .isEqualTo("\"limit\" must be an integer from 1 to 500");

      assertThat(events.reply("window", events.send(subscribe("ready", 0, 5))).get("total")
          .asLong()).isZero();
    }
  }

  @Test
  void plainGetIsRefusedWithUpgradeRequired() {
    try (ServerFixture server = ServerFixture.start(tempDir)) {
      ServerFixture.Reply reply = server.admin("GET", "/events");
      assertThat(reply.status()).isEqualTo(426);
      assertThat(reply.headers().firstValue("upgrade")).contains("websocket");
    }
  }

  /** The connection guard must not apply its HTTP timeouts to frames after the upgrade. */
  @Test
  void anUpgradedConnectionOutlivesTheHttpIdleAndHeaderTimeouts() throws InterruptedException {
    HttpLimits quick = new HttpLimits(HttpLimits.DEFAULT_MAX_BODY_BYTES, 300, 300, 300,
        HttpLimits.DEFAULT_MAX_CONNECTIONS);
    try (ServerFixture server = ServerFixture.start(tempDir, quick);
        EventsClient events = EventsClient.connect(server.adminPort())) {
      events.await("heartbeat");
      Thread.sleep(1_000);
      long ref = events.send(subscribe("ready", 0, 5));
      assertThat(events.reply("window", ref).get("total").asLong()).isZero();
      events.await("heartbeat");
    }
  }

  /**
   * Frames are not HTTP: a guard that still parsed them as requests would sooner or later find a
   * malformed "request" in the masked bytes and stop reading from the client.
   */
  @Test
  void manyFramesAfterTheUpgradeAreAllRead() {
    try (ServerFixture server = ServerFixture.start(tempDir);
        EventsClient events = EventsClient.connect(server.adminPort())) {
      events.reply("window", events.send(subscribe("ready", 0, 5)));
      for (int i = 0; i < 1_000; i++) {
        assertThat(scroll(events, i).get("offset").asLong()).isZero();
      }
    }
  }

  private static JsonNode scroll(EventsClient events, long offset) {
    return events.reply("window", events.send(message("scroll").put("offset", offset)));
  }

  private static ObjectNode find(String direction, String from, long fromOffset) {
    return message("find").put("direction", direction).put("from", from)
        .put("from_offset", fromOffset);
  }

  private static void assertWindow(JsonNode window, int offset, List<String> all) {
    assertThat(window.get("offset").asLong()).as("offset of %s", window).isEqualTo(offset);
    assertThat(ids(window)).isEqualTo(all.subList(offset, offset + 10));
  }

  private static ObjectNode later(String queue) {
    return job(queue, "later").put("ready_at", System.currentTimeMillis() + HOUR_MS);
  }
}
