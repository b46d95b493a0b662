package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.wire.Format;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of a node that does not lead: every request is sent to the leader, with a
 * {@code 307} and its URL, except a take stream, which is answered {@code 503} with the leader's
 * URL in the body and a {@code Retry-After}, since a stream is not a request to be replayed. With
 * no leader known yet, everything is {@code 503}. Both listeners answer {@code /health} (the
 * process is healthy, and says it follows), and the admin listener {@code /cluster}, themselves.
 */
public final class FollowerListener implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FollowerListener.class);
  private static final String RETRY_AFTER_SECONDS = "1";

  private final ApiConfig config;
  private final ClusterView cluster;
  private final Vertx vertx;
  private final List<HttpServer> servers = new ArrayList<>();

  public FollowerListener(ApiConfig config, ClusterView cluster) {
    this.config = config;
    this.cluster = cluster;
    this.vertx = Vertx.vertx();
  }

  /** Binds the admin listener (if enabled), then the primary one; fails if a port is taken. */
  public void start() {
    if (config.adminEnabled()) {
      listen(config.adminHost(), config.adminPort(), config.adminTls(), true);
    }
    listen(config.host(), config.port(), config.tls(), false);
  }

  private void listen(String host, int port, TlsSettings tls, boolean admin) {
    HttpServerOptions options = new HttpServerOptions().setHost(host).setPort(port)
        .setTcpNoDelay(true).setCompressionSupported(false);
    if (tls == null) {
      options.setHttp2ClearTextEnabled(true);
    } else {
      TlsListener.configure(options, tls);
    }
    Future<HttpServer> bound = vertx.createHttpServer(options)
        .requestHandler(request -> answer(request, admin))
        .listen();
    try {
      servers.add(bound.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS));
      LOG.info("following: {}:{} ({}) sends clients to the leader", host, port,
          admin ? "admin" : "primary");
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IllegalStateException("cannot listen on " + host + ":" + port + ": "
          + cause.getMessage(), cause);
    }
  }

  private void answer(HttpServerRequest request, boolean admin) {
    String path = request.path();
    if (request.method() == HttpMethod.GET && path.equals("/health")) {
      json(request, 200, json -> {
        json.writeStringField("status", "ok");
        json.writeStringField("role", "follower");
      });
      return;
    }
    if (admin && request.method() == HttpMethod.GET && path.equals("/cluster")) {
      json(request, 200, cluster::writeStatus);
      return;
    }
    Optional<String> leader = cluster.leaderUrl(admin);
    boolean takeStream = !admin && path.equals("/jobs/take");
    if (leader.isEmpty() || takeStream) {
      request.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
      json(request, 503, json -> {
        json.writeStringField("error", leader.isEmpty()
            ? "no leader is elected yet; retry shortly"
            : "this node is not the leader; open the take stream on the leader");
        json.writeStringField("leader", leader.orElse(null));
      });
      return;
    }
    request.response().putHeader("Location", leader.get() + request.uri());
    json(request, 307, json -> {
      json.writeStringField("error", "this node is not the leader; repeat the request there");
      json.writeStringField("leader", leader.get());
    });
  }

  private interface Fields {
    void write(JsonGenerator json) throws IOException;
  }

  private static void json(HttpServerRequest request, int status, Fields fields) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try (JsonGenerator json = Format.JSON.mapper().getFactory().createGenerator(body)) {
      json.writeStartObject();
      fields.write(json);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    request.response().setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(io.vertx.core.buffer.Buffer.buffer(body.toByteArray()));
  }

  @Override
  public void close() {
    for (HttpServer server : servers) {
      ApiServer.await(server.close());
    }
    ApiServer.await(vertx.close());
  }
}
