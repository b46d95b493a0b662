package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.sluice.api.HttpLimits;
import io.sluice.api.http.ConnectionWait.Wait;
import io.vertx.core.Handler;
import io.vertx.core.internal.ContextInternal;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection to {@link HttpLimits}, from accept to close. It sits first in the
 * pipeline (behind TLS) and sees every byte before Vert.x does:
 *
 * <ul>
 *   <li>HTTP/1.1: {@link Http1Framing} follows the requests; a refused head never reaches the
 *       decoder, and its JSON error is written here, in order, once the responses to the requests
 *       before it are complete. Two helpers beside the codec see decoded requests (to ignore
 *       {@code Upgrade: h2c}) and complete responses. A head must arrive within the header
 *       timeout of its first byte and a body must not pause longer than the body timeout. A
 *       request to a route of the listener's {@link DirectAnswers} that arrives while every
 *       request before it is answered is read whole here, held back from the decoder, and
 *       answered here: see {@link Answering}.
 *   <li>HTTP/2 (prior knowledge or ALPN): passed through; idle means no open stream.
 *   <li>An HTTP/1.1 connection that the server switched to another protocol (a WebSocket, once
 *       its {@code 101} response is written): passed through without timeouts, because its
 *       bytes are frames, not requests, and the protocol keeps itself alive.
 * </ul>
 *
 * <p>The idle timeout runs only while no request is in progress: from accept, or from the end of
 * the last response with nothing more received. A take stream is a response in progress, so it
 * is never idle, whatever its heartbeat interval.
 *
 * <p>Owned by the connection's event loop; every method runs there.
 */
final class ConnectionGuard extends ChannelInboundHandlerAdapter {
  static final String NAME = "sluice-guard";
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final byte[] H2_PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  /** After an error answer, input is read and dropped this long so the client sees the answer. */
  private static final long LINGER_MS = 2000;

  private enum Mode { UNDECIDED, HTTP1, HTTP2, UPGRADED, CLOSING }

  /** Who answers the HTTP/1.1 request being received. */
  private enum Answering {
    /** Vert.x: the request's bytes pass to its decoder as they arrive. */
    VERTX,
    /** Not decided yet: the head is held back until it is complete. */
    HELD_HEAD,
    /** This guard: the body is being read. */
    DIRECT_BODY,
    /** This guard: the request is read whole and handled; later bytes wait for its answer. */
    DIRECT_ANSWER
  }

  private final HttpLimits limits;
  private ChannelHandlerContext ctx;
  private Mode mode = Mode.UNDECIDED;
  /** Leading bytes that matched the HTTP/2 preface while undecided. */
  private int prefaceMatched;
  private Http1Framing framing;
  private Http2Connection http2;

  /** HTTP/1.1 responses written in full (interim 1xx ones not counted). */
  private long responsesCompleted;
  /** Whether the response after the completed ones has begun. */
  private boolean responseStarted;
  private boolean informational;
  /** A refused head's answer, waiting for the responses to the requests before it. */
  private HttpError pending;

  private ConnectionWait waiting;

  /** The listeners whose direct routes this guard may answer; null: Vert.x answers everything. */
  private final DirectAnswers direct;
  /** This connection's listener, if it has direct routes (HTTP/1.1 only). */
  private DirectAnswers.Listener directListener;
  private Answering answering = Answering.VERTX;
  /** Bytes received and held back from Vert.x (see {@link Answering}). */
  private ByteBuf held;
  /** How many of the held bytes, from their reader index, the framing has seen. */
  private int heldScanned;
  /** The request being read whole for a direct answer (while {@link Answering#DIRECT_BODY}). */
  private DirectRequest directRequest;
  /** The Vert.x context direct exchanges run in, on this connection's event loop. */
  private ContextInternal directContext;
  /** A request that Vert.x took asked to close the connection once answered. */
  private boolean closeAfterAnswers;
  /** Set while held bytes are being read, so an answer written meanwhile does not re-enter. */
  private boolean readingHeld;
  /*
   * What each direct exchange is given, made once per connection rather than per request: on C1 a
   * capturing lambda is made through method handles it does not inline.
   */
  private final BooleanSupplier connectionClosed = this::connectionClosed;
  private final Consumer<ByteBuf> directAnswer = this::answerOnLoop;
  private final Handler<Exchange> directHandler = this::handleExchange;

  ConnectionGuard(HttpLimits limits, DirectAnswers direct) {
    this.limits = limits;
    this.direct = direct;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    this.ctx = context;
    this.waiting = new ConnectionWait(limits, new DeadlineTimer(context.executor(), this::expire));
    refresh(System.nanoTime(), false);
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    mode = Mode.CLOSING;
    waiting.cancel();
    releaseHeld();
    context.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      context.fireChannelRead(msg);
      return;
    }
    switch (mode) {
      case CLOSING -> buf.release();
      case HTTP1 -> http1(buf, 0);
      case HTTP2 -> {
        context.fireChannelRead(buf);
        watchHttp2();
      }
      case UPGRADED -> context.fireChannelRead(buf);
      case UNDECIDED -> decide(buf);
      default -> throw new IllegalStateException("mode " + mode);
    }
  }

  /**
   * Learns the protocol from ALPN, or on cleartext from whether the bytes are the HTTP/2
   * preface. On cleartext, Vert.x learns it from the same bytes and builds its HTTP/1.1 pipeline
   * on the first byte that differs, so only the bytes up to that one are passed before the
   * helpers are added beside the codec: no request is decoded without them.
   */
  private void decide(ByteBuf buf) {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    if (tls != null) {
      if ("h2".equals(tls.applicationProtocol())) {
        startHttp2(buf);
      } else {
        startHttp1();
        http1(buf, 0);
      }
      return;
    }
    int matchedBefore = prefaceMatched;
    int i = buf.readerIndex();
    while (i < buf.writerIndex() && prefaceMatched < H2_PREFACE.length
        && buf.getByte(i) == H2_PREFACE[prefaceMatched]) {
      i++;
      prefaceMatched++;
    }
    if (prefaceMatched == H2_PREFACE.length) {
      startHttp2(buf);
    } else if (i == buf.writerIndex()) {
      ctx.fireChannelRead(buf);
      refresh(System.nanoTime(), false);
    } else {
      int decided = i + 1 - buf.readerIndex();
      ctx.fireChannelRead(buf.retainedSlice(buf.readerIndex(), decided));
      startHttp1();
      if (matchedBefore > 0) {
        framing.feed(Unpooled.wrappedBuffer(H2_PREFACE), 0, matchedBefore);
      }
      http1(buf, decided);
    }
  }

  private void startHttp1() {
    mode = Mode.HTTP1;
    framing = new Http1Framing(limits.maxBodyBytes());
    ChannelPipeline pipeline = ctx.pipeline();
    ChannelHandlerContext decoder = pipeline.context(HttpRequestDecoder.class);
    ChannelHandlerContext encoder = pipeline.context(HttpResponseEncoder.class);
    if (decoder == null || encoder == null) {
      throw new IllegalStateException("no HTTP/1.1 codec in " + pipeline.names());
    }
    pipeline.addAfter(decoder.name(), NAME + "-requests", new RequestFilter());
    pipeline.addAfter(encoder.name(), NAME + "-responses", new ResponseWatch());
    Channel listening = ctx.channel().parent();
    if (direct != null && listening != null
        && listening.localAddress() instanceof InetSocketAddress bound) {
      directListener = direct.listenerOn(bound);
    }
  }

  /**
   * Hands {@code buf} to whoever answers the request being received: a request that may be
   * answered directly is held back until its head is known, everything else goes to Vert.x as
   * it arrives. The first {@code alreadyPassed} bytes have already reached Vert.x.
   */
  private void http1(ByteBuf buf, int alreadyPassed) {
    if (directListener == null || alreadyPassed > 0
        || (answering == Answering.VERTX && !mayHoldNext())) {
      passToVertx(buf, alreadyPassed);
      return;
    }
    held = held == null ? buf : append(held, buf);
    readHeld();
  }

  /**
   * Whether the next request may be held back for a direct answer: the connection is between
   * requests and every request before is answered, so a direct answer cannot overtake one.
   */
  private boolean mayHoldNext() {
    return framing.phase() == Http1Framing.Phase.BETWEEN && !closeAfterAnswers
        && responsesCompleted == framing.headsCompleted() && !responseStarted && pending == null;
  }

  private void readHeld() {
    readingHeld = true;
    try {
      boolean more = true;
      while (more && held != null && mode == Mode.HTTP1) {
        more = switch (answering) {
          case VERTX -> {
            if (mayHoldNext()) {
              answering = Answering.HELD_HEAD;
              yield true;
            }
            ByteBuf rest = held;
            held = null;
            heldScanned = 0;
            passToVertx(rest, 0);
            yield false;
          }
          case HELD_HEAD -> readHead();
          case DIRECT_BODY -> readBody();
          case DIRECT_ANSWER -> {
            // Pipelined bytes: read no more until the answer is written.
            ctx.channel().config().setAutoRead(false);
            yield false;
          }
        };
      }
    } finally {
      readingHeld = false;
    }
  }

  /** Reads the held head; returns whether to go on with the held bytes. */
  private boolean readHead() {
    long heads = framing.headsCompleted();
    int start = held.readerIndex();
    int stop = framing.feedHead(held, start + heldScanned, held.writerIndex());
    heldScanned = stop - start;
    if (framing.refusal() != null) {
      releaseHeld();
      refuse(framing.refusal(), framing.refusedInBody());
      return false;
    }
    if (framing.headsCompleted() == heads) {
      if (heldScanned > DirectHead.MAX_BYTES) {
        // Too long to be one of ours: Vert.x reads it, and applies its own limits.
        answering = Answering.VERTX;
        ByteBuf head = held;
        held = null;
        heldScanned = 0;
        ctx.fireChannelRead(head);
      }
      refresh(System.nanoTime(), true);
      return false;
    }
    long length = framing.declaredBodyLength();
    boolean plain = length >= 0 && length <= Integer.MAX_VALUE - 8
        && stop - start <= DirectHead.MAX_BYTES;
    DirectHead head = plain ? DirectHead.parse(held, start, stop) : null;
    Router.Routed route = head == null ? null
        : directListener.router().directRoute(head.method(), head.path());
    heldScanned = 0;
    if (route == null) {
      answering = Answering.VERTX;
      ctx.fireChannelRead(held.retainedSlice(start, stop - start));
      held.readerIndex(stop);
      return true;
    }
    held.readerIndex(stop);
    directRequest = new DirectRequest(head, route, length);
    answering = Answering.DIRECT_BODY;
    refresh(System.nanoTime(), true);
    return true;
  }

  /** Reads the held body bytes of a direct request; returns whether to go on with the rest. */
  private boolean readBody() {
    int n = directRequest.bodyBytesIn(held.readableBytes());
    if (n > 0) {
      framing.feed(held, held.readerIndex(), held.readerIndex() + n);
      directRequest.fill(held, n);
    }
    releaseHeldIfEmpty();
    if (!directRequest.complete()) {
      refresh(System.nanoTime(), n > 0);
      return false;
    }
    DirectRequest request = directRequest;
    directRequest = null;
    answering = Answering.DIRECT_ANSWER;
    refresh(System.nanoTime(), true);
    handleDirect(request);
    return true;
  }

  /** Routes a request read whole as an exchange, in a Vert.x context on this event loop. */
  private void handleDirect(DirectRequest request) {
    DirectExchangeIo io =
        new DirectExchangeIo(request.head(), request.body(), connectionClosed, directAnswer,
            ctx.alloc());
    Exchange exchange = new Exchange(io, limits, request.route());
    if (directContext == null) {
      directContext = direct.contextOn(ctx.channel().eventLoop());
    }
    // A context of its own per request, as Vert.x gives each of its requests.
    directContext.duplicate().dispatch(exchange, directHandler);
  }

  private boolean connectionClosed() {
    return !ctx.channel().isActive();
  }

  private void answerOnLoop(ByteBuf response) {
    if (ctx.executor().inEventLoop()) {
      directAnswered(response);
    } else {
      try {
        ctx.executor().execute(() -> directAnswered(response));
      } catch (RejectedExecutionException e) {
        // The loop has shut down: the answer can go nowhere, and its pooled buffer back.
        response.release();
        throw e;
      }
    }
  }

  private void handleExchange(Exchange exchange) {
    directListener.handler().accept(exchange);
  }

  private void directAnswered(ByteBuf response) {
    if (mode != Mode.HTTP1) {
      response.release();
      releaseHeld();
      return;
    }
    ctx.writeAndFlush(response);
    answering = Answering.VERTX;
    ctx.channel().config().setAutoRead(true);
    responseComplete();
    if (!readingHeld && held != null) {
      readHeld();
    }
  }

  /** Copies {@code more} after {@code into}: one buffer, not one per read of a slow client. */
  private ByteBuf append(ByteBuf into, ByteBuf more) {
    return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), into, more);
  }

  private void releaseHeldIfEmpty() {
    if (held != null && !held.isReadable()) {
      releaseHeld();
    }
  }

  private void releaseHeld() {
    if (held != null) {
      held.release();
      held = null;
    }
    heldScanned = 0;
  }

  /**
   * Lets the framing check {@code buf} and passes on what it accepted, except the first
   * {@code alreadyPassed} bytes.
   */
  private void passToVertx(ByteBuf buf, int alreadyPassed) {
    int from = buf.readerIndex();
    int to = buf.writerIndex();
    int stop = framing.feed(buf, from, to);
    if (stop == to && alreadyPassed == 0) {
      ctx.fireChannelRead(buf);
    } else {
      int passFrom = from + alreadyPassed;
      if (stop > passFrom) {
        ctx.fireChannelRead(buf.retainedSlice(passFrom, stop - passFrom));
      }
      buf.release();
    }
    if (mode != Mode.HTTP1) {
      return;
    }
    if (framing.refusal() != null) {
      refuse(framing.refusal(), framing.refusedInBody());
    } else {
      refresh(System.nanoTime(), true);
    }
  }

  private void startHttp2(ByteBuf buf) {
    mode = Mode.HTTP2;
    ctx.fireChannelRead(buf);
    watchHttp2();
  }

  /** Follows the open streams once Vert.x has built its HTTP/2 handler. */
  private void watchHttp2() {
    if (http2 != null || mode != Mode.HTTP2) {
      return;
    }
    Http2ConnectionHandler handler = ctx.pipeline().get(Http2ConnectionHandler.class);
    if (handler == null) {
      return;
    }
    http2 = handler.connection();
    http2.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamActive(Http2Stream stream) {
        refresh(System.nanoTime(), false);
      }

      @Override
      public void onStreamClosed(Http2Stream stream) {
        // The closing stream may still be counted as active while its listeners run.
        ctx.executor().execute(() -> refresh(System.nanoTime(), false));
      }
    });
    refresh(System.nanoTime(), false);
  }

  /**
   * Answers a refused request: a refused head once every request before it is answered (so the
   * answers stay in order), a refused body at once unless its response has begun, in which case
   * the connection is only closed. Nothing more is read from the client.
   */
  private void refuse(HttpError error, boolean inBody) {
    mode = Mode.CLOSING;
    waiting.cancel();
    releaseHeld();
    long heads = framing.headsCompleted();
    LOG.debug("refusing a request from {}: {} {}", ctx.channel().remoteAddress(), error.status(),
        error.message());
    if (inBody) {
      if (responsesCompleted == heads - 1 && !responseStarted) {
        answer(error);
      } else {
        ctx.channel().close();
      }
    } else if (responsesCompleted >= heads) {
      answer(error);
    } else {
      pending = error;
    }
  }

  private void responseComplete() {
    responsesCompleted++;
    responseStarted = false;
    if (pending != null && responsesCompleted >= framing.headsCompleted()) {
      HttpError error = pending;
      pending = null;
      answer(error);
    } else {
      refresh(System.nanoTime(), false);
    }
  }

  /**
   * Writes {@code error} as a JSON response, bypassing the HTTP encoder, then ends the output
   * and drops further input for a moment before closing: closing at once while the client is
   * still sending would reset the connection and could destroy the answer before it is read.
   */
  private void answer(HttpError error) {
    Channel channel = ctx.channel();
    channel.config().setAutoRead(true);
    ctx.writeAndFlush(errorResponse(error)).addListener(written -> {
      if (channel instanceof DuplexChannel duplex && written.isSuccess()) {
        duplex.shutdownOutput();
        ctx.executor().schedule(() -> channel.close(), LINGER_MS, TimeUnit.MILLISECONDS);
      } else {
        channel.close();
      }
    });
  }

  private static ByteBuf errorResponse(HttpError error) {
    byte[] body = error.json();
    String head = HttpError.statusLine(error.status())
        + "Content-Type: application/json\r\n"
        + "Content-Length: " + body.length + "\r\n"
        + "Connection: close\r\n\r\n";
    return Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), body);
  }

  // ---- timeouts ------------------------------------------------------------------------------

  private Wait currentWait() {
    return switch (mode) {
      case CLOSING, UPGRADED -> Wait.NONE;
      case UNDECIDED -> prefaceMatched > 0 ? Wait.HEAD : Wait.IDLE;
      case HTTP2 -> http2 == null || http2.numActiveStreams() == 0 ? Wait.IDLE : Wait.NONE;
      case HTTP1 -> {
        long heads = framing.headsCompleted();
        yield switch (framing.phase()) {
          case BETWEEN -> responsesCompleted >= heads ? Wait.IDLE : Wait.NONE;
          case HEAD -> responsesCompleted >= heads ? Wait.HEAD : Wait.NONE;
          case BODY -> responsesCompleted >= heads - 1 ? Wait.BODY : Wait.NONE;
        };
      }
    };
  }

  /** Moves the wait on to what the connection waits for now (see {@link ConnectionWait}). */
  private void refresh(long nowNanos, boolean bytesArrived) {
    waiting.refresh(currentWait(), framing == null ? 0 : framing.headsCompleted(),
        responsesCompleted, nowNanos, bytesArrived);
  }

  private void expire() {
    if (!ctx.channel().isActive()) {
      return;
    }
    long now = System.nanoTime();
    refresh(now, false);
    if (!waiting.overdue(now)) {
      return;
    }
    switch (waiting.current()) {
      case IDLE -> {
        LOG.debug("closing a connection from {} idle for {} ms", ctx.channel().remoteAddress(),
            limits.idleTimeoutMs());
        ctx.channel().close();
      }
      case HEAD -> {
        LOG.debug("dropping a connection from {}: request head not received within {} ms",
            ctx.channel().remoteAddress(), limits.headerReadTimeoutMs());
        mode = Mode.CLOSING;
        ctx.channel().close();
      }
      case BODY -> refuse(HttpError.bodyTimedOut(limits.bodyReadTimeoutMs()), true);
      default -> throw new IllegalStateException("wait " + waiting.current());
    }
  }

  // ---- helpers beside the HTTP/1.1 codec -----------------------------------------------------

  /**
   * Sees each decoded request head. An {@code Upgrade: h2c} offer is removed, so the connection
   * stays HTTP/1.1 (a server may ignore Upgrade); a head the decoder refused is answered by
   * Vert.x, which then closes the connection, so the guard stops reading. Once the connection is
   * closing, what the decoder still makes of the truncated input never reaches Vert.x.
   */
  private final class RequestFilter extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
      if (mode == Mode.CLOSING) {
        ReferenceCountUtil.release(msg);
        return;
      }
      if (msg instanceof HttpRequest request) {
        if (!HttpUtil.isKeepAlive(request)) {
          // Vert.x closes the connection after answering it and drops what follows; nothing
          // after it may be answered here either.
          closeAfterAnswers = true;
        }
        if (request.decoderResult().isFailure()) {
          mode = Mode.CLOSING;
          waiting.cancel();
        } else {
          String upgrade = request.headers().get(HttpHeaderNames.UPGRADE);
          if (upgrade != null && upgrade.toLowerCase(Locale.ROOT).contains("h2c")) {
            request.headers().remove(HttpHeaderNames.UPGRADE);
          }
        }
      }
      context.fireChannelRead(msg);
    }
  }

  /** Sees each response Vert.x writes, to know when one is complete. */
  private final class ResponseWatch extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext context, Object msg, ChannelPromise promise) {
      boolean switching = false;
      if (msg instanceof HttpResponse response) {
        informational = response.status().code() < 200;
        responseStarted |= !informational;
        switching = response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code();
      }
      boolean completes = msg instanceof LastHttpContent && !informational;
      context.write(msg, promise);
      if (switching && mode == Mode.HTTP1) {
        // The client sends frames only once it has read this response, so every byte after
        // it belongs to the new protocol.
        mode = Mode.UPGRADED;
        waiting.cancel();
        return;
      }
      if (completes && (mode == Mode.HTTP1 || pending != null)) {
        responseComplete();
      }
    }
  }
}
