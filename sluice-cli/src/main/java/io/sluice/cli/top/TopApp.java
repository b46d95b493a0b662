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
 * connection ending, a resize, a clock tick) to the {@link TopModel} in arrival order, sends what
 * the keys ask for and redraws. Keys, messages and ticks arrive on threads of their own.
 */
public final class TopApp {
  /** Something that happened, applied on the UI thread. */
  private sealed interface Event {}

  private record KeyPressed(Key key) implements Event {}

  private record Received(JsonNode message, long atMs) implements Event {}

  private record Closed(String reason) implements Event {}

  private record Resized() implements Event {}

  private record Tick() implements Event {}

  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final TopModel model;
  private final TopKeys keys;

  public TopApp(String url, String clientVersion, long refreshMs) {
    this.model = new TopModel(url, clientVersion, refreshMs);
    this.keys = new TopKeys(model);
  }

  /**
   * Connects (failing before the screen is taken over, so an unreachable server is a plain error)
   * and runs until the operator quits.
   */
  public void run(HttpClient http, URI adminBase) throws IOException, InterruptedException {
    try (EventsConnection connection = EventsConnection.open(http,
        EventsConnection.eventsUri(adminBase),
        message -> events.add(new Received(message, System.currentTimeMillis())),
        reason -> events.add(new Closed(reason)));
        TopTerminal terminal = TopTerminal.open()) {
      ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "sluice-top-tick");
        thread.setDaemon(true);
        return thread;
      });
      try {
        ticker.scheduleAtFixedRate(() -> events.add(new Tick()), model.refreshMs(),
            model.refreshMs(), TimeUnit.MILLISECONDS);
        terminal.onResize(() -> events.add(new Resized()));
        terminal.onInterrupt(() -> events.add(new KeyPressed(Key.of(Key.Kind.CTRL_C))));
        startKeyReader(terminal);
        send(connection, keys.start(ScreenRenderer.listRows(terminal.height(), false)));
        loop(connection, terminal);
      } finally {
        ticker.shutdownNow();
      }
    }
  }

  private void loop(EventsConnection connection, TopTerminal terminal)
      throws InterruptedException {
    while (!model.quitting()) {
      Event event = events.take();
      do {
        apply(event, connection, terminal);
        event = events.poll();
      } while (event != null && !model.quitting());
      if (model.quitting()) {
        return;
      }
      send(connection, keys.layout(ScreenRenderer.listRows(terminal.height(), model.details())));
      terminal.draw(ScreenRenderer.render(model, terminal.width(), terminal.height(),
          System.currentTimeMillis()));
    }
  }

  private void apply(Event event, EventsConnection connection, TopTerminal terminal) {
    if (event instanceof KeyPressed pressed) {
      send(connection, keys.press(pressed.key()));
    } else if (event instanceof Received received) {
      model.apply(received.message(), received.atMs());
    } else if (event instanceof Closed closed) {
      model.disconnected(closed.reason());
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

  private static void send(EventsConnection connection, List<ObjectNode> messages) {
    messages.forEach(connection::send);
  }
}
