package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Server messages of the events feed (docs/events.md), built for tests of the screen model. */
final class FeedMessages {
  static final long NOW_MS = 1_796_000_000_000L;

  private FeedMessages() {}

  static JsonNode status(long scheduled, long ready, long inFlight, int budgets) {
    ObjectNode status = Requests.JSON.createObjectNode().put("type", "status")
        .put("time", NOW_MS).put("server_version", "0.1.0").put("api_version", "0.7.0")
        .put("started_at", NOW_MS - 3_723_000).put("uptime_ms", 3_723_000);
    status.putObject("counts").put("scheduled", scheduled).put("ready", ready)
        .put("in_flight", inFlight).put("completed", 0).put("dead", 0);
    status.put("budgets", budgets);
    status.putArray("queues");
    return status;
  }

  /** A window of {@code count} ready jobs named job-{offset}…, every third one a match. */
  static JsonNode window(String tab, long offset, int count, long total) {
    ObjectNode window = Requests.JSON.createObjectNode().put("type", "window").put("tab", tab)
        .put("offset", offset).put("limit", count).put("total", total).put("paused", false);
    window.putNull("matches");
    ArrayNode jobs = window.putArray("jobs");
    for (int i = 0; i < count; i++) {
      long position = offset + i;
      ObjectNode row = jobs.addObject().put("match", position % 3 == 0).put("payload_bytes", 9);
      ObjectNode job = row.putObject("job").put("id", id(position)).put("type", "email.send")
          .put("queue", "mail-eu").put("priority", 5).put("status", "ready")
          .put("ready_at", NOW_MS - 12_000).put("attempts", 1);
      job.putObject("payload").put("n", position);
    }
    return window;
  }

  static String id(long position) {
    return String.format("job-%021d", position);
  }

  static JsonNode found(String id, long offset) {
    return Requests.JSON.createObjectNode().put("type", "found").put("direction", "next")
        .put("id", id).put("offset", offset);
  }

  static JsonNode budgets(String key, long tokens, long capacity, long waiting,
      Long nextTokenAt) {
    ObjectNode message = Requests.JSON.createObjectNode().put("type", "budgets")
        .put("as_of", NOW_MS).put("offset", 0).put("limit", 10).put("total", 1);
    ObjectNode budget = message.putArray("budgets").addObject().put("key", key)
        .put("allocation", capacity);
    budget.putObject("strategy").put("type", "time_based").put("duration_ms", 60_000);
    ObjectNode state = budget.putObject("state").put("as_of", NOW_MS).put("tokens", tokens)
        .put("capacity", capacity).put("debt", 0);
    state.putObject("in_flight").put("jobs", 2).put("cost", 2);
    state.putObject("waiting").put("jobs", waiting).put("cost", waiting);
    if (nextTokenAt == null) {
      state.putNull("next_token_at");
    } else {
      state.put("next_token_at", nextTokenAt);
    }
    state.putNull("paused_until");
    return message;
  }
}
