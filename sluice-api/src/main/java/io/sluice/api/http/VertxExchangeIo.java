package io.sluice.api.http;

import io.sluice.api.HttpLimits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.function.IntConsumer;

/** An exchange's request and response as Vert.x decoded and will encode them. */
final class VertxExchangeIo implements ExchangeIo {
  private final HttpServerRequest request;

  VertxExchangeIo(HttpServerRequest request) {
    this.request = request;
  }

  @Override
  public HttpMethod method() {
    return request.method();
  }

  @Override
  public String path() {
    return request.path();
  }

  @Override
  public String query() {
    return request.query();
  }

  @Override
  public String header(String name) {
    return request.getHeader(name);
  }

  @Override
  public Future<byte[]> body(HttpLimits limits) {
    return BodyReader.read(request, limits);
  }

  @Override
  public boolean answered() {
    HttpServerResponse response = request.response();
    return response.ended() || response.closed();
  }

  @Override
  public void answer(int status, String contentType, Buffer body) {
    request.response().setStatusCode(status).putHeader("Content-Type", contentType).end(body);
  }

  @Override
  public void answerNoContent() {
    request.response().setStatusCode(204).end();
  }

  @Override
  public void whenHeadSent(IntConsumer statusSink) {
    // The headers-end handler is the response's one; nothing else in the server uses it.
    HttpServerResponse response = request.response();
    response.headersEndHandler(ignored -> statusSink.accept(response.getStatusCode()));
  }

  @Override
  public HttpServerRequest vertxRequest() {
    return request;
  }
}
