package io.sluice.api.http;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.netty.handler.ssl.SslHandler;
import io.sluice.api.HttpLimits;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.transport.Transport;
import java.net.SocketAddress;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Vert.x transport (native when available, else NIO) with one change: every listener bound
 * through it counts its open connections and puts a {@link ConnectionGuard} on each accepted one
 * before Vert.x sees a byte. Vert.x offers no earlier hook: its connection handler runs only once
 * the protocol is known, which on a cleartext listener is after the first request head has been
 * decoded.
 *
 * <p>A connection beyond {@link HttpLimits#maxConnections()} on its listener is closed at once,
 * before any handler of Vert.x is added to it.
 */
public final class GuardedTransport implements Transport {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedTransport.class);

  private final Transport base;
  private final io.vertx.core.spi.transport.Transport implementation;

  private GuardedTransport(Transport base, HttpLimits limits, DirectAnswers direct) {
    this.base = base;
    this.implementation = new Guarded(base.implementation(), limits, direct);
  }

  /**
   * The best transport of this machine, guarded with {@code limits}; the guards answer the
   * direct routes of the listeners registered in {@code direct}.
   */
  public static GuardedTransport of(HttpLimits limits, DirectAnswers direct) {
    Transport preferred = Transport.nativeTransport();
    return new GuardedTransport(
        preferred != null && preferred.available() ? preferred : Transport.NIO, limits, direct);
  }

  @Override
  public String name() {
    return base.name();
  }

  @Override
  public boolean available() {
    return base.available();
  }

  @Override
  public Throwable unavailabilityCause() {
    return base.unavailabilityCause();
  }

  @Override
  public io.vertx.core.spi.transport.Transport implementation() {
    return implementation;
  }

  /** Delegates everything; wraps the child handler of every server bootstrap. */
  private static final class Guarded implements io.vertx.core.spi.transport.Transport {
    private final io.vertx.core.spi.transport.Transport delegate;
    private final HttpLimits limits;
    private final DirectAnswers direct;

    Guarded(io.vertx.core.spi.transport.Transport delegate, HttpLimits limits,
        DirectAnswers direct) {
      this.delegate = delegate;
      this.limits = limits;
      this.direct = direct;
    }

    @Override
    public void configure(NetServerOptions options, boolean domainSocket,
        ServerBootstrap bootstrap) {
      delegate.configure(options, domainSocket, bootstrap);
      bootstrap.childHandler(
          new ListenerGate(bootstrap.config().childHandler(), limits, direct));
    }

    @Override
    public boolean supportsDomainSockets() {
      return delegate.supportsDomainSockets();
    }

    @Override
    public boolean supportFileRegion() {
      return delegate.supportFileRegion();
    }

    @Override
    public boolean isAvailable() {
      return delegate.isAvailable();
    }

    @Override
    public Throwable unavailabilityCause() {
      return delegate.unavailabilityCause();
    }

    @Override
    public SocketAddress convert(io.vertx.core.net.SocketAddress address) {
      return delegate.convert(address);
    }

    @Override
    public io.vertx.core.net.SocketAddress convert(SocketAddress address) {
      return delegate.convert(address);
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return delegate.ioHandlerFactory();
    }

    @Override
    public EventLoopGroup eventLoopGroup(int type, int threads, ThreadFactory threadFactory,
        int ioRatio) {
      return delegate.eventLoopGroup(type, threads, threadFactory, ioRatio);
    }

    @Override
    public DatagramChannel datagramChannel() {
      return delegate.datagramChannel();
    }

    @Override
    public DatagramChannel datagramChannel(InternetProtocolFamily family) {
      return delegate.datagramChannel(family);
    }

    @Override
    public ChannelFactory<? extends Channel> channelFactory(boolean domainSocket) {
      return delegate.channelFactory(domainSocket);
    }

    @Override
    public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
      return delegate.serverChannelFactory(domainSocket);
    }

    @Override
    public void configure(DatagramChannel channel, DatagramSocketOptions options) {
      delegate.configure(channel, options);
    }

    @Override
    public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket,
        Bootstrap bootstrap) {
      delegate.configure(options, connectTimeout, domainSocket, bootstrap);
    }
  }

  /**
   * Admits a listener's accepted connections up to the limit, each with Vert.x's own handlers
   * and a guard in front of them (behind TLS, which the guard must see through). Shared by the
   * listener's event loops.
   */
  private static final class ListenerGate extends ChannelInitializer<Channel> {
    private final ChannelHandler vertx;
    private final HttpLimits limits;
    private final DirectAnswers direct;
    private final AtomicInteger open = new AtomicInteger();
    /** Set while connections are being refused, so the limit is logged once per episode. */
    private final AtomicBoolean refusing = new AtomicBoolean();

    ListenerGate(ChannelHandler vertx, HttpLimits limits, DirectAnswers direct) {
      this.vertx = vertx;
      this.limits = limits;
      this.direct = direct;
    }

    @Override
    protected void initChannel(Channel channel) {
      if (open.incrementAndGet() > limits.maxConnections()) {
        open.decrementAndGet();
        if (refusing.compareAndSet(false, true)) {
          LOG.warn("{} has {} open connections, its limit; closing new ones until one closes",
              channel.localAddress(), limits.maxConnections());
        }
        channel.close();
        return;
      }
      refusing.set(false);
      channel.closeFuture().addListener(closed -> open.decrementAndGet());
      channel.pipeline().addLast(vertx);
      ConnectionGuard guard = new ConnectionGuard(limits, direct);
      ChannelHandlerContext tls = channel.pipeline().context(SslHandler.class);
      if (tls == null) {
        channel.pipeline().addFirst(ConnectionGuard.NAME, guard);
      } else {
        channel.pipeline().addAfter(tls.name(), ConnectionGuard.NAME, guard);
      }
    }
  }
}
