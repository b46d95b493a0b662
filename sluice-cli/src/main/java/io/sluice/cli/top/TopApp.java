package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code sluice top}: one thread applies every event (a key, a server message, the
 * connection ending or coming back, a resize, a clock tick) to the {@link TopModel} in arrival
 * order, sends what the keys ask for and redraws. Keys, messages and ticks arrive on threads of
 * their own. A lost connection is retried every {@link #RECONNECT_DELAY_MS} until the operator
 * quits: a server restarted for a deploy reappears on the same screen.
 */
public final class TopApp {
  /** Something that happened, applied on the UI thread. */
  private sealed interface Event {}

  private record KeyPressed(Key key) implements Event {}

  private record Received(int generation, JsonNode message, long atMs) implements Event {}

  private record Closed(int generation, String reason) implements Event {}

  private record Reconnected(EventsConnection connection) implements Event {}

  private record ReconnectFailed(String reason) implements Event {}

  private record Resized() implements Event {}

  private record Tick() implements Event {}

  static final long RECONNECT_DELAY_MS = 1_000;

  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final TopModel model;
  private final TopKeys keys;
  private HttpClient http;
  private URI eventsUri;
  private ScheduledExecutorService ticker;
  /** The connection in use; replaced when a lost one is made again (UI thread only). */
  private EventsConnection connection;
  /** Counts connections, so that a late message or close of an old one is ignored. */
  private int generation;
  private boolean reconnecting;

  public TopApp(String url, String clientVersion, long refreshMs) {
    this.model = new TopModel(url, clientVersion, refreshMs);
    this.keys = new TopKeys(model);
  }

  /**
   * Connects (failing before the screen is taken over, so an unreachable server is a plain error)
   * and runs until the operator quits.
   */
  public void run(HttpClient http, URI adminBase) throws IOException, InterruptedException {
    this.http = http;
    this.eventsUri = EventsConnection.eventsUri(adminBase);
    connection = connect(generation);
    ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "sluice-top-tick");
      thread.setDaemon(true);
      return thread;
    });
    try (TopTerminal terminal = TopTerminal.open()) {
      ticker.scheduleAtFixedRate(() -> events.add(new Tick()), model.refreshMs(),
          model.refreshMs(), TimeUnit.MILLISECONDS);
      terminal.onResize(() -> events.add(new Resized()));
      terminal.onInterrupt(() -> events.add(new KeyPressed(Key.of(Key.Kind.CTRL_C))));
      startKeyReader(terminal);
      send(keys.start(ScreenRenderer.listRows(terminal.height(), false)));
      loop(terminal);
    } finally {
      ticker.shutdownNow();
      connection.close();
    }
  }

  /** Opens the feed; its messages and its end are tagged with {@code tag}. */
  private EventsConnection connect(int tag) {
    return EventsConnection.open(http, eventsUri,
        message -> events.add(new Received(tag, message, System.currentTimeMillis())),
        reason -> events.add(new Closed(tag, reason)));
  }

  /** Tries to connect again after a pause, off the UI thread, and reports how it went. */
  private void reconnectLater() {
    reconnecting = true;
    int next = generation + 1;
    ticker.schedule(() -> {
      try {
        events.add(new Reconnected(connect(next)));
      } catch (RuntimeException e) {
        events.add(new ReconnectFailed(reason(e)));
      }
    }, RECONNECT_DELAY_MS, TimeUnit.MILLISECONDS);
  }

  private static String reason(Throwable e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() != null ? cause.getMessage() : cause.toString();
  }

  private void loop(TopTerminal terminal) throws InterruptedException {
    while (!model.quitting()) {
      Event event = events.take();
      do {
        apply(event, terminal);
        event = events.poll();
      } while (event != null && !model.quitting());
      if (model.quitting()) {
        return;
      }
      send(keys.layout(ScreenRenderer.listRows(terminal.height(), model.details())));
      terminal.draw(ScreenRenderer.render(model, terminal.width(), terminal.height(),
          System.currentTimeMillis()));
    }
  }

  private void apply(Event event, TopTerminal terminal) {
    if (event instanceof KeyPressed pressed) {
      send(keys.press(pressed.key()));
    } else if (event instanceof Received received) {
      // A new connection may speak before its Reconnected event is applied; an old one is stale.
      if (received.generation() >= generation) {
        model.apply(received.message(), received.atMs());
      }
    } else if (event instanceof Closed closed) {
      if (closed.generation() == generation && !reconnecting) {
        model.disconnected(closed.reason());
        reconnectLater();
      }
    } else if (event instanceof ReconnectFailed failed) {
      model.disconnected(failed.reason());
      reconnectLater();
    } else if (event instanceof Reconnected reconnected) {
      connection.close();
      connection = reconnected.connection();
      generation++;
      reconnecting = false;
      model.reconnected();
      send(keys.start(ScreenRenderer.listRows(terminal.height(), model.details())));
    } else if (event instanceof Resized) {
      terminal.size();
    }
  }

  private void startKeyReader(TopTerminal terminal) {
    Thread reader = new Thread(() -> {
      Key key;
      while ((key = terminal.readKey()) != null) {
        events.add(new KeyPressed(key));
      }
      events.add(new KeyPressed(Key.of(Key.Kind.CTRL_C))); // input ended: nobody is left to type
    }, "sluice-top-keys");
    reader.setDaemon(true);
    reader.start();
  }

  private void send(List<ObjectNode> messages) {
    messages.forEach(connection::send);
  }
}
