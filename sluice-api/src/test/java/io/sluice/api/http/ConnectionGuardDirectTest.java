package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.sluice.api.HttpLimits;
import io.sluice.engine.SluiceException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.transport.Transport;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link ConnectionGuard} answering direct routes itself, on a real loopback connection. The
 * guard sits first in a Netty pipeline whose HTTP codec ends in a stand-in for Vert.x that
 * records every request it decodes and answers {@code 200 vertx:<method> <uri>}; so a response
 * tells who wrote it, and the stand-in's record tells which requests the guard let through.
 *
 * <p>The connections read up to 64 KiB at a time, so a write of less than that normally reaches
 * the guard in one read; writes meant to arrive apart are separated by a pause.
 */
class ConnectionGuardDirectTest {
  private static final int TIMEOUT_MS = 5_000;
  private static final long SLOW_MS = 150;
  private static final long PAUSE_MS = 50;
  private static final HttpLimits LIMITS = HttpLimits.DEFAULTS;

  private static Vertx vertx;
  /** What escaped a Vert.x context (a direct exchange's handler runs in one). */
  private static final List<Throwable> contextFailures = new CopyOnWriteArrayList<>();

  /** {@code <method> <uri>} of each request the stand-in decoded, in order. */
  private final List<String> reachedVertx = new CopyOnWriteArrayList<>();
  /** The body of each, as text. */
  private final List<String> vertxBodies = new CopyOnWriteArrayList<>();
  /** {@code <method> <path>} of each request a direct route's handler took, in order. */
  private final List<String> routedDirectly = new CopyOnWriteArrayList<>();
  /** The threads those handlers ran on, and whether in a Vert.x context on an event loop. */
  private final List<Thread> directThreads = new CopyOnWriteArrayList<>();
  private final List<Boolean> directInContext = new CopyOnWriteArrayList<>();
  /** Calls of the one route added with {@link Router#add}: never, since Vert.x owns it. */
  private final AtomicInteger plainRouteCalls = new AtomicInteger();
  /** Exceptions that reached the end of a connection's pipeline. */
  private final List<Throwable> pipelineFailures = new CopyOnWriteArrayList<>();
  private final List<Channel> accepted = new CopyOnWriteArrayList<>();

  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final CountDownLatch slowAnswered = new CountDownLatch(1);
  private final List<Throwable> slowFailures = new CopyOnWriteArrayList<>();

  private DirectAnswers direct;
  private Channel server;
  private int port;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.builder().withTransport(Transport.NIO).build();
    vertx.exceptionHandler(contextFailures::add);
  }

  @AfterAll
  static void stopVertx() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @BeforeEach
  void startServer() throws Exception {
    contextFailures.clear();
    direct = new DirectAnswers();
    direct.use(vertx);
    VertxInternal internal = (VertxInternal) vertx;
    server = new ServerBootstrap()
        .group(internal.acceptorEventLoopGroup(), internal.nettyEventLoopGroup())
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(64 * 1024))
        .childHandler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel channel) {
            accepted.add(channel);
            channel.pipeline().addLast(
                new HttpRequestDecoder(new HttpDecoderConfig()
                    .setMaxInitialLineLength(InvalidRequests.MAX_REQUEST_LINE_BYTES)
                    .setMaxHeaderSize(InvalidRequests.MAX_HEADER_BYTES)),
                new HttpResponseEncoder(),
                new HttpObjectAggregator(16 << 20),
                new StandIn());
            channel.pipeline().addFirst(ConnectionGuard.NAME, new ConnectionGuard(LIMITS, direct));
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .sync()
        .channel();
    port = ((InetSocketAddress) server.localAddress()).getPort();
    direct.serve("127.0.0.1", port, router(), this::routeAndRecord);
  }

  @AfterEach
  void stopServer() {
    server.close().awaitUninterruptibly(TIMEOUT_MS);
    for (Channel channel : accepted) {
      channel.close().awaitUninterruptibly(TIMEOUT_MS);
    }
  }

  // ---- the server under test ------------------------------------------------------------------

  private Router router;

  private Router router() {
    router = new Router()
        .addDirect(HttpMethod.POST, "/direct", (ex, p) -> ex.respond(ex.rawBody(),
            body -> ex.send(201, gen -> {
              gen.writeStartObject();
              gen.writeFieldName("echo");
              gen.writeRawValue(new String(body, StandardCharsets.UTF_8));
              gen.writeEndObject();
            })))
        .addDirect(HttpMethod.POST, "/empty", (ex, p) -> ex.noContent())
        .addDirect(HttpMethod.POST, "/conflict",
            (ex, p) -> ex.fail(new HttpError(409, "already there", null)))
        .addDirect(HttpMethod.POST, "/throws", (ex, p) -> {
          throw new SluiceException.InvalidRequest("no good");
        })
        .addDirect(HttpMethod.POST, "/slow", (ex, p) -> {
          slowStarted.countDown();
          vertx.setTimer(SLOW_MS, timer -> {
            try {
              ex.send(201, gen -> {
                gen.writeStartObject();
                gen.writeBooleanField("slow", true);
                gen.writeEndObject();
              });
            } catch (Throwable e) {
              slowFailures.add(e);
            } finally {
              slowAnswered.countDown();
            }
          });
        })
        .add(HttpMethod.POST, "/plain", (ex, p) -> {
          plainRouteCalls.incrementAndGet();
          ex.noContent();
        });
    return router;
  }

  /** The listener's handler: records who handled what, then routes as the server does. */
  private void routeAndRecord(Exchange exchange) {
    routedDirectly.add(exchange.method() + " " + exchange.path());
    directThreads.add(Thread.currentThread());
    directInContext.add(Vertx.currentContext() != null && Context.isOnEventLoopThread());
    router.route(exchange);
  }

  /** Stands in for Vert.x behind the codec: records each request and answers who it is. */
  private final class StandIn extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      String line = request.method() + " " + request.uri();
      reachedVertx.add(line);
      vertxBodies.add(request.content().toString(StandardCharsets.UTF_8));
      byte[] body = ("vertx:" + line).getBytes(StandardCharsets.UTF_8);
      FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
          HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
          .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      if (HttpUtil.isKeepAlive(request)) {
        ctx.writeAndFlush(response);
      } else {
        response.headers().set(HttpHeaderNames.CONNECTION, "close");
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      pipelineFailures.add(cause);
      ctx.close();
    }
  }

  // ---- requests and expected responses --------------------------------------------------------

  private static String post(String target, String body) {
    return "POST " + target + " HTTP/1.1\r\nHost: localhost\r\n"
        + "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
  }

  private static String echoOf(String body) {
    return "{\"echo\":" + body + "}";
  }

  private static String createdHead(int length) {
    return "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\ncontent-length: " + length
        + "\r\n\r\n";
  }

  /** The response the guard writes for {@code POST /direct} with {@code body}. */
  private static void assertEchoedDirectly(Response response, String body) {
    String echo = echoOf(body);
    assertThat(response.head()).isEqualTo(createdHead(echo.length()));
    assertThat(response.text()).isEqualTo(echo);
  }

  /** The stand-in's answer to {@code <method> <uri>}. */
  private static void assertAnsweredByVertx(Response response, String requestLine) {
    assertThat(response.status()).as(response.head()).isEqualTo(200);
    assertThat(response.text()).isEqualTo("vertx:" + requestLine);
  }

  /** The first request of a cleartext connection, which always goes to Vert.x. */
  private static void warmUp(Client client) throws IOException {
    client.send(post("/direct?warm-up", "{}"));
    assertAnsweredByVertx(client.read(), "POST /direct?warm-up");
  }

  private void assertNothingFailed() {
    assertThat(pipelineFailures).as("exceptions at the end of a pipeline").isEmpty();
    assertThat(contextFailures).as("exceptions escaping a Vert.x context").isEmpty();
    assertThat(plainRouteCalls).as("the plain route is Vert.x's").hasValue(0);
  }

  // ---- the tests ------------------------------------------------------------------------------

  @Test
  void theFirstRequestOfACleartextConnectionGoesToVertxAndLaterOnesAreAnsweredDirectly()
      throws Exception {
    try (Client client = connect()) {
      client.send(post("/direct", "{\"n\":1}"));
      assertAnsweredByVertx(client.read(), "POST /direct");

      client.send(post("/direct", "{\"n\":2}"));
      assertEchoedDirectly(client.read(), "{\"n\":2}");
      client.send(post("/direct?x=y", "[3,\"three\"]"));
      assertEchoedDirectly(client.read(), "[3,\"three\"]");

      assertThat(reachedVertx).containsExactly("POST /direct");
      assertThat(routedDirectly).containsExactly("POST /direct", "POST /direct");
      assertThat(directInContext).containsOnly(true);
      assertThat(directThreads)
          .allSatisfy(thread -> assertThat(accepted.get(0).eventLoop().inEventLoop(thread))
              .as("on the connection's event loop").isTrue());
      assertThat(client.idle()).as("nothing written beyond the responses").isTrue();
      assertNothingFailed();
    }
  }

  @Test
  void aNoContentAnswerIsTheStatusLineAndABlankLineOnly() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/empty", "{}"));
      assertThat(client.readBytes("HTTP/1.1 204 No Content\r\n\r\n".length()))
          .isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
      client.send(post("/empty", ""));
      assertThat(client.readBytes("HTTP/1.1 204 No Content\r\n\r\n".length()))
          .isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
      client.send(post("/direct", "1"));
      assertEchoedDirectly(client.read(), "1");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly("POST /empty", "POST /empty", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aRouteNotAddedAsDirectGoesToVertxBetweenDirectOnes() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(client.read(), "{\"n\":1}");
      client.send(post("/plain", "{\"n\":2}"));
      assertAnsweredByVertx(client.read(), "POST /plain");
      client.send(post("/direct", "{\"n\":3}"));
      assertEchoedDirectly(client.read(), "{\"n\":3}");
      // A path no route has and a method the direct route does not take are Vert.x's (its
      // router answers them 404 and 405).
      client.send(post("/nowhere", "{}"));
      assertAnsweredByVertx(client.read(), "POST /nowhere");
      client.send("PUT /direct HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}");
      assertAnsweredByVertx(client.read(), "PUT /direct");
      client.send(post("/direct", "{\"n\":4}"));
      assertEchoedDirectly(client.read(), "{\"n\":4}");

      assertThat(reachedVertx).containsExactly(
          "POST /direct?warm-up", "POST /plain", "POST /nowhere", "PUT /direct");
      assertThat(vertxBodies).containsExactly("{}", "{\"n\":2}", "{}", "{}");
      assertThat(routedDirectly).containsExactly("POST /direct", "POST /direct", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderWhoeverAnswersThem() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/direct?seq=1", "{\"n\":1}") + post("/plain?seq=2", "{\"n\":2}")
          + post("/direct?seq=3", "{\"n\":3}"));

      assertEchoedDirectly(client.read(), "{\"n\":1}");
      assertAnsweredByVertx(client.read(), "POST /plain?seq=2");
      Response third = client.read();
      // Once the plain request went to Vert.x, what follows it in the same read may too.
      if (reachedVertx.contains("POST /direct?seq=3")) {
        assertAnsweredByVertx(third, "POST /direct?seq=3");
        assertThat(reachedVertx).containsExactly(
            "POST /direct?warm-up", "POST /plain?seq=2", "POST /direct?seq=3");
        assertThat(routedDirectly).containsExactly("POST /direct");
      } else {
        assertEchoedDirectly(third, "{\"n\":3}");
        assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /plain?seq=2");
        assertThat(routedDirectly).containsExactly("POST /direct", "POST /direct");
      }

      // The connection is back to answering directly.
      client.send(post("/direct?seq=4", "{\"n\":4}"));
      assertEchoedDirectly(client.read(), "{\"n\":4}");
      assertThat(reachedVertx).doesNotContain("POST /direct?seq=1", "POST /direct?seq=4");
      assertThat(client.idle()).isTrue();
      assertNothingFailed();
    }
  }

  @Test
  void pipelinedDirectRequestsAreAllAnsweredDirectly() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/direct?seq=1", "{\"n\":1}") + post("/empty?seq=2", "")
          + post("/direct?seq=3", "{\"n\":3}"));

      assertEchoedDirectly(client.read(), "{\"n\":1}");
      assertThat(client.readBytes("HTTP/1.1 204 No Content\r\n\r\n".length()))
          .isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
      assertEchoedDirectly(client.read(), "{\"n\":3}");
      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly("POST /direct", "POST /empty", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void requestsPipelinedBehindAPendingDirectAnswerWaitForIt() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/slow?seq=1", "{}") + post("/plain?seq=2", "{\"n\":2}")
          + post("/direct?seq=3", "{\"n\":3}"));

      Response slow = client.read();
      assertThat(slow.head()).isEqualTo(createdHead("{\"slow\":true}".length()));
      assertThat(slow.text()).isEqualTo("{\"slow\":true}");
      assertAnsweredByVertx(client.read(), "POST /plain?seq=2");
      Response third = client.read();
      if (reachedVertx.contains("POST /direct?seq=3")) {
        assertAnsweredByVertx(third, "POST /direct?seq=3");
      } else {
        assertEchoedDirectly(third, "{\"n\":3}");
      }
      assertThat(reachedVertx).startsWith("POST /direct?warm-up", "POST /plain?seq=2")
          .doesNotContain("POST /slow?seq=1");
      assertThat(routedDirectly).startsWith("POST /slow");
      assertThat(slowFailures).isEmpty();
      assertNothingFailed();
    }
  }

  @Test
  void aRequestArrivingWhileADirectAnswerIsPendingIsReadOnceItIsWritten() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/slow", "{}"));
      assertThat(slowStarted.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
      client.send(post("/direct", "{\"n\":2}"));

      Response slow = client.read();
      assertThat(slow.text()).isEqualTo("{\"slow\":true}");
      assertEchoedDirectly(client.read(), "{\"n\":2}");
      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly("POST /slow", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aHeadAndABodyArrivingInPiecesAreAnsweredDirectly() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      String request = post("/direct?split=head", "{\"n\":1}");
      int crlf = request.indexOf("\r\n\r\n");
      client.sendApart(request.substring(0, 9), request.substring(9, crlf + 1),
          request.substring(crlf + 1));
      assertEchoedDirectly(client.read(), "{\"n\":1}");

      String body = "{\"split\":\"body\",\"n\":[1,2,3]}";
      String split = post("/direct?split=body", body);
      int bodyStart = split.length() - body.length();
      client.sendApart(split.substring(0, bodyStart + 1),
          split.substring(bodyStart + 1, bodyStart + 12), split.substring(bodyStart + 12));
      assertEchoedDirectly(client.read(), body);

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly("POST /direct", "POST /direct");
      assertNothingFailed();
    }
  }

  /** Heads a direct route may not take, each sent after a warm-up and followed by a direct one. */
  @ParameterizedTest
  @ValueSource(strings = {
      // No Host.
      "POST /direct?case HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      // Two.
      "POST /direct?case HTTP/1.1\r\nHost: a\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}",
      // A chunked body.
      "POST /direct?case HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
      // Two Content-Types.
      "POST /direct?case HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
      // An upgrade offer.
      "POST /direct?case HTTP/1.1\r\nHost: localhost\r\nUpgrade: h2c\r\nContent-Length: 2\r\n\r\n{}",
      // A Connection other than keep-alive that keeps the connection open.
      "POST /direct?case HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive, x-other\r\n"
          + "Content-Length: 2\r\n\r\n{}",
      // A byte outside visible ASCII.
      "POST /direct?case HTTP/1.1\r\nHost: localhost\r\nX-Name: caf\u00e9\r\nContent-Length: 2\r\n\r\n{}",
      // A target in absolute form.
      "POST http://localhost/direct?case HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}"})
  void headsThatAskForMoreThanAPlainExchangeGoToVertx(String head) throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(head);
      Response response = client.read();
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.text()).startsWith("vertx:POST ").endsWith("/direct?case");
      client.send(post("/direct", "{\"after\":1}"));
      assertEchoedDirectly(client.read(), "{\"after\":1}");

      assertThat(reachedVertx).hasSize(2);
      assertThat(reachedVertx.get(1)).endsWith("/direct?case");
      assertThat(vertxBodies.get(1)).isEqualTo("{}");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void connectionCloseGoesToVertx() throws Exception {
    try (Client client = connect()) {
      warmUp(client);
      client.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(client.read(), "{\"n\":1}");

      client.send("POST /direct?close HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
      assertAnsweredByVertx(client.read(), "POST /direct?close");
      assertThat(client.closedByServer()).isTrue();

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?close");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void http10GoesToVertx() throws Exception {
    try (Client client = connect()) {
      warmUp(client);
      client.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(client.read(), "{\"n\":1}");

      client.send("POST /direct?http10 HTTP/1.0\r\nHost: localhost\r\n"
          + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
      assertAnsweredByVertx(client.read(), "POST /direct?http10");
      assertThat(client.closedByServer()).isTrue();

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?http10");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void expectContinueGoesToVertx() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send("POST /direct?expect HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n"
          + "Content-Type: application/json\r\nContent-Length: 7\r\n\r\n");
      assertThat(client.read().status()).isEqualTo(100);
      client.send("{\"n\":1}");
      assertAnsweredByVertx(client.read(), "POST /direct?expect");
      client.send(post("/direct", "{\"n\":2}"));
      assertEchoedDirectly(client.read(), "{\"n\":2}");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?expect");
      assertThat(vertxBodies.get(1)).isEqualTo("{\"n\":1}");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  private static String longHeadRequest() {
    return "POST /direct?long HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + "X-Long: " + "a".repeat(DirectHead.MAX_BYTES + 100) + "\r\n"
        + "Content-Length: 7\r\n\r\n{\"n\":1}";
  }

  @Test
  void aHeadLongerThanTheDirectLimitArrivingInPiecesGoesToVertx() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      String request = longHeadRequest();
      int cut = DirectHead.MAX_BYTES + 150;
      client.sendApart(request.substring(0, cut), request.substring(cut));
      assertAnsweredByVertx(client.read(), "POST /direct?long");
      client.send(post("/direct", "{\"n\":2}"));
      assertEchoedDirectly(client.read(), "{\"n\":2}");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?long");
      assertThat(vertxBodies.get(1)).isEqualTo("{\"n\":1}");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aHeadLongerThanTheDirectLimitArrivingInOneReadGoesToVertx() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(longHeadRequest());
      assertAnsweredByVertx(client.read(), "POST /direct?long");
      client.send(post("/direct", "{\"n\":2}"));
      assertEchoedDirectly(client.read(), "{\"n\":2}");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?long");
      assertThat(routedDirectly).containsExactly("POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aBodyLargerThanTheFirstAllocationIsReadWhole() throws Exception {
    // 3 MiB and a few bytes of varying letters, so a lost, repeated or misplaced piece shows.
    StringBuilder text = new StringBuilder((3 << 20) + 16).append("[\"");
    for (int i = 0; text.length() < (3 << 20) + 5; i++) {
      text.append((char) ('a' + (i * 7 + i / 26) % 26));
    }
    String body = text.append("\"]").toString();

    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/direct?large", body));
      Response response = client.read();
      assertThat(response.head()).isEqualTo(createdHead(echoOf(body).length()));
      assertThat(response.body()).hasSize(echoOf(body).length());
      assertThat(response.text().equals(echoOf(body))).as("the body echoed exactly").isTrue();
      client.send(post("/direct", "{\"n\":2}"));
      assertEchoedDirectly(client.read(), "{\"n\":2}");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly("POST /direct", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aHandlersErrorIsAnsweredDirectlyAndTheConnectionStaysUsable() throws Exception {
    try (Client client = connect()) {
      warmUp(client);

      client.send(post("/conflict", "{}"));
      String conflict = "{\"error\":\"already there\"}";
      Response response = client.read();
      assertThat(response.head()).isEqualTo("HTTP/1.1 409 Conflict\r\n"
          + "Content-Type: application/json\r\ncontent-length: " + conflict.length() + "\r\n\r\n");
      assertThat(response.text()).isEqualTo(conflict);

      client.send(post("/throws", "{}"));
      Response thrown = client.read();
      assertThat(thrown.status()).isEqualTo(400);
      assertThat(thrown.headers()).containsEntry("content-type", "application/json");
      assertThat(thrown.text()).isEqualTo("{\"error\":\"no good\"}");

      client.send("POST /direct HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
          + "Content-Length: 2\r\n\r\n{}");
      Response unsupported = client.read();
      assertThat(unsupported.status()).isEqualTo(415);
      assertThat(unsupported.text()).isEqualTo("{\"error\":\"unsupported media type\","
          + "\"supported\":[\"application/json\",\"application/msgpack\"]}");

      client.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(client.read(), "{\"n\":1}");

      assertThat(reachedVertx).containsExactly("POST /direct?warm-up");
      assertThat(routedDirectly).containsExactly(
          "POST /conflict", "POST /throws", "POST /direct", "POST /direct");
      assertNothingFailed();
    }
  }

  @Test
  void aClientClosingWhileADirectAnswerIsPendingHarmsNothing() throws Exception {
    try (Client client = connect()) {
      warmUp(client);
      client.send(post("/slow", "{}"));
      assertThat(slowStarted.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
    }
    assertThat(accepted.get(0).closeFuture().await(TIMEOUT_MS)).isTrue();
    assertThat(slowAnswered.await(TIMEOUT_MS, TimeUnit.MILLISECONDS)).isTrue();
    assertThat(slowFailures).as("the late answer").isEmpty();

    try (Client other = connect()) {
      warmUp(other);
      other.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(other.read(), "{\"n\":1}");
    }
    assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?warm-up");
    assertThat(routedDirectly).containsExactly("POST /slow", "POST /direct");
    assertNothingFailed();
  }

  @Test
  void aClientClosingInsideADirectBodyHarmsNothing() throws Exception {
    try (Client client = connect()) {
      warmUp(client);
      client.send("POST /direct HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n[1,2");
      Thread.sleep(PAUSE_MS);
    }
    assertThat(accepted.get(0).closeFuture().await(TIMEOUT_MS)).isTrue();

    try (Client other = connect()) {
      warmUp(other);
      other.send(post("/direct", "{\"n\":1}"));
      assertEchoedDirectly(other.read(), "{\"n\":1}");
    }
    assertThat(reachedVertx).containsExactly("POST /direct?warm-up", "POST /direct?warm-up");
    assertThat(routedDirectly).containsExactly("POST /direct");
    assertNothingFailed();
  }

  // ---- a raw HTTP/1.1 client ------------------------------------------------------------------

  private Client connect() throws IOException {
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress("127.0.0.1", port), TIMEOUT_MS);
    socket.setSoTimeout(TIMEOUT_MS);
    return new Client(socket);
  }

  /** A response: its head as received (status line to blank line), and its body. */
  record Response(String head, int status, Map<String, String> headers, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private static final class Client implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Client(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream());
      this.out = socket.getOutputStream();
    }

    void send(String text) throws IOException {
      out.write(text.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    }

    /** Writes each piece on its own, pausing between them so each arrives in its own read. */
    void sendApart(String... pieces) throws IOException, InterruptedException {
      for (int i = 0; i < pieces.length; i++) {
        if (i > 0) {
          Thread.sleep(PAUSE_MS);
        }
        send(pieces[i]);
      }
    }

    /** Reads one response, whose body (if any) is framed by its Content-Length. */
    Response read() throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int last4 = 0;
      while (last4 != 0x0d0a0d0a) {
        int b = in.read();
        if (b < 0) {
          throw new EOFException("closed after " + head.size() + " bytes of a response head: "
              + head.toString(StandardCharsets.ISO_8859_1));
        }
        head.write(b);
        last4 = last4 << 8 | b;
      }
      String text = head.toString(StandardCharsets.ISO_8859_1);
      String[] lines = text.split("\r\n");
      assertThat(lines[0]).as("status line").matches("HTTP/1\\.1 \\d{3} .*");
      Map<String, String> headers = new TreeMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        assertThat(colon).as("header line %s", lines[i]).isPositive();
        String name = lines[i].substring(0, colon).toLowerCase(Locale.ROOT);
        assertThat(headers).as("repeated header in %s", text).doesNotContainKey(name);
        headers.put(name, lines[i].substring(colon + 1).trim());
      }
      String length = headers.get("content-length");
      byte[] body = length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length));
      if (length != null && body.length < Integer.parseInt(length)) {
        throw new EOFException("closed inside a body of " + length + " bytes");
      }
      return new Response(text, Integer.parseInt(lines[0].substring(9, 12)), headers, body);
    }

    /** Reads exactly {@code n} bytes, as text. */
    String readBytes(int n) throws IOException {
      byte[] bytes = in.readNBytes(n);
      return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** Whether nothing more is received for a moment (no stray bytes after the responses). */
    boolean idle() throws IOException {
      socket.setSoTimeout((int) PAUSE_MS);
      try {
        in.read();
        return false;
      } catch (SocketTimeoutException e) {
        return true;
      } finally {
        socket.setSoTimeout(TIMEOUT_MS);
      }
    }

    /** Whether the server closed the connection with nothing more to read. */
    boolean closedByServer() throws IOException {
      try {
        return in.read() == -1;
      } catch (SocketTimeoutException e) {
        return false;
      } catch (IOException e) {
        return true;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
