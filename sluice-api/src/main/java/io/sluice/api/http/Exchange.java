package io.sluice.api.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.HttpLimits;
import io.sluice.api.wire.Bodies;
import io.sluice.api.wire.BodyException;
import io.sluice.api.wire.BufferOutputStream;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.Negotiation;
import io.vertx.core.Completable;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntConsumer;

/**
 * One request and its response: negotiates formats, decodes the body, checks query parameters
 * and writes results or errors. Used on the request's event-loop thread only.
 */
public final class Exchange {
  /** Writes a response document with a Jackson generator of the negotiated format. */
  @FunctionalInterface
  public interface BodyWriter {
    void write(JsonGenerator gen) throws IOException;
  }

  private final ExchangeIo io;
  private final HttpLimits limits;
  private final Router.Routed directRoute;
  private String route;

  public Exchange(HttpServerRequest request, HttpLimits limits) {
    this(new VertxExchangeIo(request), limits, null);
  }

  /** {@code directRoute}: the route already found to take it, or null to match it when routed. */
  Exchange(ExchangeIo io, HttpLimits limits, Router.Routed directRoute) {
    this.io = io;
    this.limits = limits;
    this.directRoute = directRoute;
  }

  /**
   * The Vert.x request, for the routes that stream or set headers of their own. An exchange that
   * a connection's guard answers itself (a route added with {@link Router#addDirect}) has none.
   */
  public HttpServerRequest request() {
    return io.vertxRequest();
  }

  Router.Routed directRoute() {
    return directRoute;
  }

  HttpMethod method() {
    return io.method();
  }

  String path() {
    return io.path();
  }

  /** Calls {@code statusSink} with the response's status once its head is on its way. */
  public void whenHeadSent(IntConsumer statusSink) {
    io.whenHeadSent(statusSink);
  }

  /**
   * The pattern of the route that took this request, such as {@code /jobs/{id}}; null when no
   * route matched its path.
   */
  public String route() {
    return route;
  }

  void routedTo(String pattern) {
    route = pattern;
  }

  /** The negotiated response format; throws a 406 when the client accepts neither. */
  public Format responseFormat() {
    Format format = Negotiation.responseFormat(io.header("Accept"));
    if (format == null) {
      throw new Negotiation.NotAcceptable(Negotiation.BODY_TYPES);
    }
    return format;
  }

  /**
   * The query parameters, strictly decoded; any not in {@code allowed} is a 400 (API.md §3.8,
   * {@link QueryParams}).
   */
  public MultiMap query(Set<String> allowed) {
    return QueryParams.parse(io.query(), allowed);
  }

  /** Reads and decodes the body in the format its Content-Type names. */
  public Future<JsonNode> body() {
    return rawBody().map(bytes -> Bodies.tree(requestFormat(), bytes));
  }

  /** Like {@link #body}, but an absent or empty body reads as {@code {}}. */
  public Future<JsonNode> optionalBody() {
    Format format = Negotiation.requestFormat(io.header("Content-Type"));
    if (format == null) {
      return Future.failedFuture(new Negotiation.UnsupportedMediaType());
    }
    return io.body(limits).map(bytes -> bytes.length == 0
        ? Format.JSON.mapper().createObjectNode()
        : Bodies.tree(format, Bodies.checked(format, bytes)));
  }

  /**
   * The body for an endpoint that used to ignore it: an absent or empty body, or one whose
   * Content-Type is neither JSON nor MessagePack, reads as {@code {}} (so old clients are not
   * refused); any other is decoded like {@link #body}.
   */
  public Future<JsonNode> bodyIfAny() {
    return io.body(limits).map(bytes -> {
      Format format = Negotiation.requestFormat(io.header("Content-Type"));
      if (bytes.length == 0 || format == null) {
        return Format.JSON.mapper().createObjectNode();
      }
      return Bodies.tree(format, Bodies.checked(format, bytes));
    });
  }

  /**
   * The body bytes, checked to be a non-empty document of a supported media type, in strict
   * UTF-8 (MessagePack also within the JSON data model), for endpoints that stream-parse it
   * themselves.
   */
  public Future<byte[]> rawBody() {
    Format format = Negotiation.requestFormat(io.header("Content-Type"));
    if (format == null) {
      return Future.failedFuture(new Negotiation.UnsupportedMediaType());
    }
    return io.body(limits).map(new CheckedBody(format));
  }

  /**
   * A body refused when empty, checked as {@code format} otherwise. A class rather than a lambda,
   * as it is made for every enqueue and acknowledgement: on C1 a capturing lambda is made through
   * method handles it does not inline.
   */
  private record CheckedBody(Format format) implements Function<byte[], byte[]> {
    @Override
    public byte[] apply(byte[] bytes) {
      if (bytes.length == 0) {
        throw new BodyException(format, "empty body");
      }
      return Bodies.checked(format, bytes);
    }
  }

  /** The format of the request body (valid once {@link #body} succeeded). */
  public Format requestFormat() {
    return Negotiation.requestFormat(io.header("Content-Type"));
  }

  public void send(int status, BodyWriter writer) {
    send(status, 512, writer);
  }

  /** Answers an object whose one member, {@code field}, lists {@code values}. */
  public void sendList(int status, String field, Iterable<String> values) {
    send(status, gen -> {
      gen.writeStartObject();
      gen.writeArrayFieldStart(field);
      for (String value : values) {
        gen.writeString(value);
      }
      gen.writeEndArray();
      gen.writeEndObject();
    });
  }

  /**
   * Like {@link #send(int, BodyWriter)}, with room for about {@code expectedBytes} reserved up
   * front, so a large response is not grown and copied on its way out.
   */
  public void send(int status, int expectedBytes, BodyWriter writer) {
    Format format;
    try {
      format = responseFormat();
    } catch (RuntimeException e) {
      fail(e);
      return;
    }
    send(status, format, expectedBytes, writer);
  }

  private void send(int status, Format format, int expectedBytes, BodyWriter writer) {
    Buffer body = encode(format, expectedBytes, writer);
    if (!io.answered()) {
      io.answer(status, format.mediaType(), body);
    }
  }

  static Buffer encode(Format format, int expectedBytes, BodyWriter writer) {
    BufferOutputStream out = new BufferOutputStream(Buffer.buffer(expectedBytes));
    try (JsonGenerator gen = format.mapper().getFactory().createGenerator(out)) {
      writer.write(gen);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.buffer();
  }

  public void noContent() {
    if (!io.answered()) {
      io.answerNoContent();
    }
  }

  public void fail(Throwable failure) {
    fail(HttpError.of(failure));
  }

  public void fail(HttpError error) {
    // 406 must be answered in JSON; a 415 follows Accept when it can.
    Format format = error.status() == 406 ? Format.JSON : Negotiation.responseFormat(
        io.header("Accept"));
    if (format == null) {
      format = Format.JSON;
    }
    send(error.status(), format, 256, gen -> {
      gen.writeStartObject();
      gen.writeStringField("error", error.message());
      if (error.supported() != null) {
        gen.writeArrayFieldStart("supported");
        for (String type : error.supported()) {
          gen.writeString(type);
        }
        gen.writeEndArray();
      }
      gen.writeEndObject();
    });
  }

  /** Completes with {@code onSuccess}, or answers the failure's error. */
  public <T> void respond(Future<T> result, java.util.function.Consumer<T> onSuccess) {
    result.onComplete(new Responding<>(onSuccess));
  }

  /**
   * What {@link #respond} does with the result. A class rather than a lambda, as one is made for
   * each step of every request: on C1 a capturing lambda is made through method handles it does
   * not inline.
   */
  private final class Responding<T> implements Completable<T> {
    private final java.util.function.Consumer<T> onSuccess;

    Responding(java.util.function.Consumer<T> onSuccess) {
      this.onSuccess = onSuccess;
    }

    @Override
    public void complete(T result, Throwable failure) {
      // Qualified: Completable has a fail of its own, which would call this method again.
      if (failure != null) {
        Exchange.this.fail(failure);
        return;
      }
      try {
        onSuccess.accept(result);
      } catch (RuntimeException e) {
        Exchange.this.fail(e);
      }
    }
  }
}
