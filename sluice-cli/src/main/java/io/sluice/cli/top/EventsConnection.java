package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A connection to {@code GET /events} on the JDK's WebSocket client (TLS and mutual TLS come
 * with the {@link HttpClient}). Messages are parsed and handed on whole; sends are chained,
 * because the client allows one outstanding send at a time.
 */
public final class EventsConnection implements AutoCloseable {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final WebSocket socket;
  private CompletableFuture<WebSocket> sending;

  private EventsConnection(WebSocket socket) {
    this.socket = socket;
    this.sending = CompletableFuture.completedFuture(socket);
  }

  /**
   * Connects; {@code onMessage} gets each message and {@code onClosed} the reason the
   * connection ended, both on the client's own threads.
   */
  public static EventsConnection open(HttpClient http, URI uri, Consumer<JsonNode> onMessage,
      Consumer<String> onClosed) {
    WebSocket socket = http.newWebSocketBuilder()
        .connectTimeout(CONNECT_TIMEOUT)
        .buildAsync(uri, new Listener(onMessage, onClosed))
        .join();
    return new EventsConnection(socket);
  }

  /** The events URI for an admin base URL: ws for http, wss for https. */
  public static URI eventsUri(URI adminBase) {
    String scheme = adminBase.getScheme().equalsIgnoreCase("https") ? "wss" : "ws";
    return URI.create(scheme + "://" + adminBase.getRawAuthority() + "/events");
  }

  public synchronized void send(ObjectNode message) {
    String text = message.toString();
    sending = sending.thenCompose(ws -> ws.sendText(text, true));
  }

  @Override
  public void close() {
    socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye").exceptionally(e -> null);
    socket.abort();
  }

  /** Joins the frames of each text message, parses it and asks for the next. */
  private static final class Listener implements WebSocket.Listener {
    private final Consumer<JsonNode> onMessage;
    private final Consumer<String> onClosed;
    private final StringBuilder partial = new StringBuilder();

    Listener(Consumer<JsonNode> onMessage, Consumer<String> onClosed) {
      this.onMessage = onMessage;
      this.onClosed = onClosed;
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        try {
          onMessage.accept(Requests.JSON.readTree(text));
        } catch (IOException e) {
          onClosed.accept("unreadable message from the server");
          webSocket.abort();
          return null;
        }
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
      onClosed.accept("the server closed the connection (" + statusCode
          + (reason.isEmpty() ? "" : " " + reason) + ")");
      return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
      onClosed.accept(error.getMessage() != null ? error.getMessage() : error.toString());
    }
  }
}
