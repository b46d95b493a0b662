package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;

/**
 * Request builders and calls for the budget endpoints and budget bindings (BUDGETS.md §2, §4, §8),
 * shared by the {@code Budget*HttpTest} classes. Every call goes through {@link ServerFixture},
 * so it is bounded by {@link ServerFixture#TIMEOUT}.
 */
final class BudgetClient {
  private final ServerFixture server;

  BudgetClient(ServerFixture server) {
    this.server = server;
  }

  // ---- bodies --------------------------------------------------------------------------------

  /** {@code {"allocation": n, "strategy": {"type": "while_in_flight"}}}. */
  static ObjectNode whileInFlight(long allocation) {
    ObjectNode body = JSON.createObjectNode().put("allocation", allocation);
    body.putObject("strategy").put("type", "while_in_flight");
    return body;
  }

  /** {@code {"allocation": n, "strategy": {"type": "time_based", "duration_ms": d}}}. */
  static ObjectNode timeBased(long allocation, long durationMs) {
    ObjectNode body = JSON.createObjectNode().put("allocation", allocation);
    body.putObject("strategy").put("type", "time_based").put("duration_ms", durationMs);
    return body;
  }

  /** As {@link #timeBased(long, long)} with an explicit {@code burst}. */
  static ObjectNode timeBased(long allocation, long durationMs, long burst) {
    ObjectNode body = timeBased(allocation, durationMs);
    ((ObjectNode) body.get("strategy")).put("burst", burst);
    return body;
  }

  /** A binding {@code {"key": k}} (cost defaulted). */
  static ObjectNode binding(String key) {
    return JSON.createObjectNode().put("key", key);
  }

  static ObjectNode binding(String key, long cost) {
    return binding(key).put("cost", cost);
  }

  /** A binding that creates its budget with {@code policy} when it does not exist. */
  static ObjectNode bindingCreating(String key, JsonNode policy) {
    ObjectNode binding = binding(key);
    binding.set("create_with", policy);
    return binding;
  }

  /** A minimal enqueue request for {@code queue} bound to {@code bindings}, in order. */
  static ObjectNode boundJob(String queue, JsonNode... bindings) {
    ObjectNode job = ServerFixture.job(queue, "work");
    ArrayNode budgets = job.putArray("budgets");
    for (JsonNode binding : bindings) {
      budgets.add(binding);
    }
    return job;
  }

  /** A minimal enqueue request for {@code queue} bound to {@code key} with cost 1. */
  static ObjectNode boundJob(String queue, String key) {
    return boundJob(queue, binding(key));
  }

  /** {@code [{"key": k, "cost": c}, …]} as the server echoes bindings. */
  static ArrayNode echoed(Object... keyCostPairs) {
    ArrayNode list = JSON.createArrayNode();
    for (int i = 0; i < keyCostPairs.length; i += 2) {
      // An int, as a parsed response holds small numbers (IntNode does not equal LongNode).
      list.addObject().put("key", (String) keyCostPairs[i])
          .put("cost", ((Number) keyCostPairs[i + 1]).intValue());
    }
    return list;
  }

  // ---- paths and calls -----------------------------------------------------------------------

  /** {@code /budgets/<key>} with the key percent-encoded as one path segment. */
  static String path(String key) {
    return "/budgets/" + encode(key);
  }

  static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  Reply sendJson(String method, String pathAndQuery, String json) {
    return server.send(method, pathAndQuery,
        json == null ? null : json.getBytes(StandardCharsets.UTF_8),
        "Content-Type", "application/json");
  }

  Reply sendJson(String method, String pathAndQuery, JsonNode json) {
    return sendJson(method, pathAndQuery, json.toString());
  }

  /** A MessagePack request body (may be null), asking for a MessagePack answer. */
  Reply sendMsgpack(String method, String pathAndQuery, JsonNode body) {
    return server.send(method, pathAndQuery,
        body == null ? null : ServerFixture.toMsgpack(body),
        "Content-Type", MSGPACK_TYPE, "Accept", MSGPACK_TYPE);
  }

  Reply create(String key, JsonNode policy) {
    return sendJson("POST", path(key), policy);
  }

  Reply put(String key, JsonNode policy) {
    return sendJson("PUT", path(key), policy);
  }

  Reply patch(String key, JsonNode patch) {
    return sendJson("PATCH", path(key), patch);
  }

  Reply patch(String key, String patch) {
    return sendJson("PATCH", path(key), patch);
  }

  Reply get(String key) {
    return server.get(path(key));
  }

  Reply delete(String key) {
    return server.send("DELETE", path(key), null);
  }

  /** PUT asserting 200; returns the budget. */
  JsonNode define(String key, JsonNode policy) {
    Reply reply = put(key, policy);
    assertThat(reply.status()).as("PUT %s %s -> %s", path(key), policy, reply).isEqualTo(200);
    return reply.json();
  }

  /** PATCH asserting 200; returns the budget. */
  JsonNode patchOk(String key, JsonNode patch) {
    Reply reply = patch(key, patch);
    assertThat(reply.status()).as("PATCH %s %s -> %s", path(key), patch, reply).isEqualTo(200);
    return reply.json();
  }

  /** GET asserting 200; returns the budget. */
  JsonNode fetch(String key) {
    Reply reply = get(key);
    assertThat(reply.status()).as("GET %s -> %s", path(key), reply).isEqualTo(200);
    return reply.json();
  }

  // ---- assertions ----------------------------------------------------------------------------

  /** Asserts a JSON error body that is exactly {@code {"error": message}}. */
  static void assertError(Reply reply, int status, String message) {
    assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/json");
    assertThat(reply.json())
        .as("body of %s", reply)
        .isEqualTo(JSON.createObjectNode().put("error", message));
  }

  /** Asserts a JSON error body {@code {"error": "<prefix>…"}}; returns the message. */
  static String assertErrorStartingWith(Reply reply, int status, String prefix) {
    assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode body = reply.json();
    assertThat(body.size()).as("only `error` in %s", body).isEqualTo(1);
    assertThat(reply.error()).startsWith(prefix);
    return reply.error();
  }

  /** Asserts a MessagePack error body that is exactly {@code {"error": message}}. */
  static void assertMsgpackError(Reply reply, int status, String message) {
    assertThat(reply.status()).as("status of %s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
    assertThat(reply.msgpack())
        .as("MessagePack body (status %d)", reply.status())
        .isEqualTo(JSON.createObjectNode().put("error", message));
  }

  /**
   * A copy of {@code node} without the named members, at any depth: for comparing bodies while
   * ignoring timestamps and IDs.
   */
  static JsonNode without(JsonNode node, String... names) {
    JsonNode copy = node.deepCopy();
    strip(copy, names);
    return copy;
  }

  private static void strip(JsonNode node, String[] names) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      for (String name : names) {
        object.remove(name);
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
        strip(it.next().getValue(), names);
      }
    } else if (node.isArray()) {
      for (JsonNode element : node) {
        strip(element, names);
      }
    }
  }

  /** Parses JSON text (e.g. a response quoted from the seed). */
  static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError("bad JSON in test: " + json, e);
    }
  }
}
