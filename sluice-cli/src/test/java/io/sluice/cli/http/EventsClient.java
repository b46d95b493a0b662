package io.sluice.cli.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A test client of {@code GET /events} on the JDK's WebSocket client: sends messages, keeps every
 * message received in order and waits (bounded) for the ones a test expects.
 */
final class EventsClient implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(10);

  private final WebSocket socket;
  private final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
  private final List<JsonNode> seen = new ArrayList<>();
  private volatile Throwable failure;
  private long nextRef;

  private EventsClient(URI uri) {
    HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
    this.socket = http.newWebSocketBuilder().connectTimeout(WAIT)
        .buildAsync(uri, new Collector()).orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .join();
  }

  static EventsClient connect(int adminPort) {
    return new EventsClient(URI.create("ws://127.0.0.1:" + adminPort + "/events"));
  }

  /** Sends {@code message} with a fresh {@code ref}, which it returns. */
  long send(ObjectNode message) {
    long ref = ++nextRef;
    message.put("ref", ref);
    sendRaw(message.toString());
    return ref;
  }

  void sendRaw(String text) {
    socket.sendText(text, true).orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS).join();
  }

  static ObjectNode message(String type) {
    return ServerFixture.JSON.createObjectNode().put("type", type);
  }

  /** A subscribe message; refine it before sending. */
  static ObjectNode subscribe(String tab, long offset, int limit) {
    return message("subscribe").put("tab", tab).put("offset", offset).put("limit", limit);
  }

  /** The next message of {@code type} that {@code accept}s, skipping others. */
  JsonNode await(String type, Predicate<JsonNode> accept) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      JsonNode next;
      try {
        next = left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted");
      }
      if (next == null) {
        throw new AssertionError("no " + type + " message within " + WAIT
            + (failure == null ? "" : " (connection failed: " + failure + ")")
            + "; last received: " + seen.subList(Math.max(0, seen.size() - 5), seen.size()));
      }
      seen.add(next);
      if (type.equals(next.path("type").asText()) && accept.test(next)) {
        return next;
      }
    }
  }

  JsonNode await(String type) {
    return await(type, message -> true);
  }

  /** Every message received during {@code period}. */
  List<JsonNode> during(Duration period) {
    List<JsonNode> messages = new ArrayList<>();
    long deadline = System.nanoTime() + period.toNanos();
    try {
      for (long left = period.toNanos(); left > 0; left = deadline - System.nanoTime()) {
        JsonNode next = received.poll(left, TimeUnit.NANOSECONDS);
        if (next != null) {
          seen.add(next);
          messages.add(next);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
    return messages;
  }

  /** The reply of {@code type} to the request numbered {@code ref}. */
  JsonNode reply(String type, long ref) {
    return await(type, message -> message.path("ref").asLong(-1) == ref);
  }

  /** The ids of a window's jobs, in order. */
  static List<String> ids(JsonNode window) {
    List<String> ids = new ArrayList<>();
    for (JsonNode row : window.get("jobs")) {
      ids.add(row.get("job").get("id").textValue());
    }
    return ids;
  }

  @Override
  public void close() {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "done")
        .orTimeout(WAIT.toMillis(), TimeUnit.MILLISECONDS)
        .exceptionally(e -> null)
        .join();
    socket.abort();
  }

  /** Joins the frames of each text message and parses it. */
  private final class Collector implements WebSocket.Listener {
    private final StringBuilder partial = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        try {
          received.add(ServerFixture.JSON.readTree(partial.toString()));
        } catch (IOException e) {
          throw new UncheckedIOException("unparsable message: " + partial, e);
        } finally {
          partial.setLength(0);
        }
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      failure = error;
    }
  }
}
