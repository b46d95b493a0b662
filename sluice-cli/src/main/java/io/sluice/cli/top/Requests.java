package io.sluice.cli.top;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.events.Search;
import io.sluice.api.events.Tab;

/** The client messages of the events feed (docs/events.md) that {@code sluice top} sends. */
final class Requests {
  static final ObjectMapper JSON = new ObjectMapper();

  private Requests() {}

  static ObjectNode subscribe(Tab tab, long offset, int limit, String types, String queues,
      long refreshMs) {
    ObjectNode message = message("subscribe").put("tab", tab.wireName()).put("offset", offset)
        .put("limit", limit).put("refresh_ms", refreshMs);
    message.set("search", search(types, queues));
    return message;
  }

  static ObjectNode scroll(long offset) {
    return message("scroll").put("offset", offset);
  }

  static ObjectNode setSearch(String types, String queues) {
    ObjectNode message = message("search");
    message.set("search", search(types, queues));
    return message;
  }

  static ObjectNode find(boolean forward, String fromId, long fromOffset) {
    return message("find").put("direction", forward ? "next" : "previous").put("from", fromId)
        .put("from_offset", fromOffset);
  }

  static ObjectNode pause(boolean paused) {
    return message("pause").put("paused", paused);
  }

  static ObjectNode delete(String id) {
    return message("delete").put("id", id);
  }

  private static ObjectNode search(String types, String queues) {
    ObjectNode search = JSON.createObjectNode();
    ArrayNode typeTerms = search.putArray("types");
    Search.terms(types).forEach(typeTerms::add);
    ArrayNode queueTerms = search.putArray("queues");
    Search.terms(queues).forEach(queueTerms::add);
    return search;
  }

  private static ObjectNode message(String type) {
    return JSON.createObjectNode().put("type", type);
  }
}
