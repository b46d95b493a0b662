package io.sluice.api.http;

import io.sluice.api.HttpLimits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.util.function.IntConsumer;

/**
 * What an {@link Exchange} reads from its request and writes as its response: through Vert.x
 * ({@link VertxExchangeIo}), or below it for the routes a connection's guard answers itself
 * ({@link DirectExchangeIo}).
 */
interface ExchangeIo {
  HttpMethod method();

  /** The request target's path, not decoded. */
  String path();

  /** The request target's query, not decoded; null if it has none. */
  String query();

  /** A request header's value, or null. */
  String header(String name);

  /** The whole body, fails with a {@link HttpError.Rejection} when refused. */
  Future<byte[]> body(HttpLimits limits);

  /** Whether the response was written or the connection is gone. */
  boolean answered();

  /** Writes the whole response: {@code body} of {@code contentType}. */
  void answer(int status, String contentType, Buffer body);

  /** Writes a 204 response. */
  void answerNoContent();

  /** Calls {@code statusSink} with the status once the response's head is on its way. */
  void whenHeadSent(IntConsumer statusSink);

  /** The Vert.x request, for the routes that stream; a direct exchange has none. */
  HttpServerRequest vertxRequest();
}
