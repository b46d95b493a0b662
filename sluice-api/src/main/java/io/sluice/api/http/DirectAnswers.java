package io.sluice.api.http;

import io.netty.channel.EventLoop;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The listeners whose connections' guards answer some requests themselves, below Vert.x: a
 * keep-alive HTTP/1.1 request to a route added with {@link Router#addDirect}, received while
 * nothing else is in progress on its connection, is read whole by the guard, routed as an
 * {@link Exchange} like any other, and its answer written by the guard. Vert.x's HTTP codec,
 * request and response objects and write queue were a fifth of the event loop's time for such
 * requests (docs/decisions.md, "Hot requests answered below Vert.x").
 *
 * <p>Filled by the server once each listener is bound; a connection accepted before that, or on
 * a listener never registered, goes to Vert.x whole.
 */
public final class DirectAnswers {
  /** A listener's routes and what handles one of its exchanges (counting it, then routing it). */
  record Listener(InetAddress host, Router router, Consumer<Exchange> handler) {}

  /** By port; two listeners share one only on different hosts (the admin one may). */
  private final Map<Integer, List<Listener>> byPort = new ConcurrentHashMap<>();
  private final Map<EventLoop, ContextInternal> contexts = new ConcurrentHashMap<>();
  private volatile VertxInternal vertx;

  /** The Vert.x instance whose event loops the listeners run on. */
  public void use(Vertx owner) {
    this.vertx = (VertxInternal) owner;
  }

  /**
   * Lets the guards of connections accepted by the listener bound to {@code host} and
   * {@code port} answer its direct routes.
   */
  public void serve(String host, int port, Router router, Consumer<Exchange> handler) {
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      // The listener is bound, so its host resolved; if it no longer does, Vert.x answers all.
      return;
    }
    byPort.computeIfAbsent(port, p -> new CopyOnWriteArrayList<>())
        .add(new Listener(address, router, handler));
  }

  /**
   * The listener bound to {@code bound}, or null if its requests all go to Vert.x. The port
   * decides unless two listeners share it; then the host must match one of them exactly.
   */
  Listener listenerOn(InetSocketAddress bound) {
    List<Listener> listeners = vertx == null ? null : byPort.get(bound.getPort());
    if (listeners == null || listeners.isEmpty()) {
      return null;
    }
    if (listeners.size() == 1) {
      return listeners.get(0);
    }
    for (Listener listener : listeners) {
      if (listener.host().equals(bound.getAddress())) {
        return listener;
      }
    }
    return null;
  }

  /**
   * A Vert.x context on {@code loop}, in which a direct exchange is handled, so that what it
   * waits on (the engine's answer) resumes on its own event loop as for any request.
   */
  ContextInternal contextOn(EventLoop loop) {
    return contexts.computeIfAbsent(loop,
        l -> vertx.contextBuilder().withEventLoop(l).build());
  }
}
