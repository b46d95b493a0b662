package io.sluice.api.http;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the request heads the HTTP/1.1 decoder could not read (Vert.x's invalid request
 * handler) with a JSON error, then closes the connection, since the rest of the stream cannot be
 * framed: a request line too long (414), header fields too large (431), anything else malformed
 * (400). Runs on the connection's event loop.
 */
public final class InvalidRequests {
  /** Longest request line the decoder accepts. */
  public static final int MAX_REQUEST_LINE_BYTES = 64 * 1024;
  /** Largest header section the decoder accepts. */
  public static final int MAX_HEADER_BYTES = 64 * 1024;
  private static final Logger LOG = LoggerFactory.getLogger(InvalidRequests.class);

  private InvalidRequests() {}

  public static void answer(HttpServerRequest request) {
    HttpError error = errorFor(request.decoderResult().cause());
    LOG.debug("refusing a malformed request from {}: {} {}", request.remoteAddress(),
        error.status(), error.message());
    request.response()
        .setStatusCode(error.status())
        .putHeader("Content-Type", "application/json")
        .putHeader("Connection", "close")
        .end(Buffer.buffer(error.json()))
        .onComplete(ended -> request.connection().close());
  }

  static HttpError errorFor(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return new HttpError(414,
          "request line too long (at most " + MAX_REQUEST_LINE_BYTES + " bytes)", null);
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return new HttpError(431,
          "request header fields too large (at most " + MAX_HEADER_BYTES + " bytes)", null);
    }
    return new HttpError(400, "malformed request: " + cause.getMessage(), null);
  }
}
