package io.sluice.api.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Parses the JSON text messages of events clients; anything malformed is a {@link Invalid}. */
final class ClientMessages {
  static final int MAX_LIMIT = 500;
  static final long MIN_REFRESH_MS = 100;
  static final long MAX_REFRESH_MS = 60_000;
  static final long DEFAULT_REFRESH_MS = 500;
  static final int DEFAULT_LIMIT = 50;

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A message that cannot be understood; its text goes back in an {@code error} message. */
  static final class Invalid extends RuntimeException {
    private final Long ref;

    Invalid(Long ref, String message) {
      super(message, null, false, false);
      this.ref = ref;
    }

    Long ref() {
      return ref;
    }
  }

  private ClientMessages() {}

  static ClientMessage parse(String text) {
    JsonNode message;
    try {
      message = JSON.readTree(text);
    } catch (IOException e) {
      throw new Invalid(null, "message is not JSON");
    }
    if (message == null || !message.isObject()) {
      throw new Invalid(null, "message must be a JSON object");
    }
    Long ref = ref(message);
    String type = message.path("type").asText(null);
    if (type == null) {
      throw new Invalid(ref, "message needs a string \"type\"");
    }
    return switch (type) {
      case "subscribe" -> new ClientMessage.Subscribe(ref, tab(ref, message),
          number(ref, message, "offset", 0, 0, Long.MAX_VALUE),
          (int) number(ref, message, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
          search(ref, message.get("search")),
          number(ref, message, "refresh_ms", DEFAULT_REFRESH_MS, MIN_REFRESH_MS,
              MAX_REFRESH_MS));
      case "scroll" -> new ClientMessage.Scroll(ref,
          required(ref, message, "offset", 0, Long.MAX_VALUE));
      case "search" -> new ClientMessage.SetSearch(ref, search(ref, message.get("search")));
      case "find" -> find(ref, message);
      case "pause" -> {
        JsonNode paused = message.get("paused");
        if (paused == null || !paused.isBoolean()) {
          throw new Invalid(ref, "pause needs a boolean \"paused\"");
        }
        yield new ClientMessage.Pause(ref, paused.booleanValue());
      }
      case "delete" -> new ClientMessage.Delete(ref, string(ref, message, "id"));
      case "throughput" -> new ClientMessage.WatchThroughput(ref);
      default -> throw new Invalid(ref, "unknown message type: " + type);
    };
  }

  private static ClientMessage find(Long ref, JsonNode message) {
    String direction = string(ref, message, "direction");
    if (!direction.equals("next") && !direction.equals("previous")) {
      throw new Invalid(ref, "direction must be \"next\" or \"previous\"");
    }
    JsonNode from = message.get("from");
    String fromId = from == null || from.isNull() ? null : string(ref, message, "from");
    return new ClientMessage.Find(ref, direction.equals("next"), fromId,
        number(ref, message, "from_offset", 0, 0, Long.MAX_VALUE));
  }

  private static Long ref(JsonNode message) {
    JsonNode ref = message.get("ref");
    return ref != null && ref.canConvertToLong() && ref.isIntegralNumber() ? ref.longValue() : null;
  }

  private static Tab tab(Long ref, JsonNode message) {
    Tab tab = Tab.fromWireName(message.path("tab").asText(""));
    if (tab == null) {
      throw new Invalid(ref, "tab must be one of \"in_flight\", \"ready\", \"scheduled\","
          + " \"budgets\"");
    }
    return tab;
  }

  /** {@code {"types": …, "queues": …}}, each an array of terms or one string of them. */
  private static Search search(Long ref, JsonNode search) {
    if (search == null || search.isNull()) {
      return Search.NONE;
    }
    if (!search.isObject()) {
      throw new Invalid(ref, "search must be an object with \"types\" and \"queues\"");
    }
    return new Search(terms(ref, search.get("types"), "types"),
        terms(ref, search.get("queues"), "queues"));
  }

  private static List<String> terms(Long ref, JsonNode node, String field) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (node.isTextual()) {
      return Search.terms(node.textValue());
    }
    if (!node.isArray()) {
      throw new Invalid(ref, "search." + field + " must be a string or an array of strings");
    }
    List<String> terms = new ArrayList<>();
    for (JsonNode term : node) {
      if (!term.isTextual()) {
        throw new Invalid(ref, "search." + field + " must be a string or an array of strings");
      }
      terms.addAll(Search.terms(term.textValue()));
    }
    return terms;
  }

  private static String string(Long ref, JsonNode message, String field) {
    JsonNode value = message.get(field);
    if (value == null || !value.isTextual()) {
      throw new Invalid(ref, "\"" + field + "\" must be a string");
    }
    return value.textValue();
  }

  private static long required(Long ref, JsonNode message, String field, long min, long max) {
    if (message.get(field) == null) {
      throw new Invalid(ref, "\"" + field + "\" is required");
    }
    return number(ref, message, field, min, min, max);
  }

  private static long number(Long ref, JsonNode message, String field, long absent, long min,
      long max) {
    JsonNode value = message.get(field);
    if (value == null || value.isNull()) {
      return absent;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < min
        || value.longValue() > max) {
      throw new Invalid(ref, "\"" + field + "\" must be an integer from " + min + " to " + max);
    }
    return value.longValue();
  }
}
