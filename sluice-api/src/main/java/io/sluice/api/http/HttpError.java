package io.sluice.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.api.wire.BodyException;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.Negotiation;
import io.sluice.engine.SluiceException;
import io.sluice.engine.store.StorageException;
import io.vertx.core.http.HttpClosedException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The only place that turns exceptions into HTTP statuses and error bodies. A 500 body stays
 * generic; the log carries the cause.
 */
public record HttpError(int status, String message, List<String> supported) {
  private static final Logger LOG = LoggerFactory.getLogger(HttpError.class);

  /** A request refused for what it is rather than what it asks (a body too large or too slow). */
  static final class Rejection extends RuntimeException {
    private final HttpError error;

    Rejection(HttpError error) {
      super(error.message(), null, false, false);
      this.error = error;
    }

    HttpError error() {
      return error;
    }
  }

  public static HttpError of(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof Rejection rejection) {
      return rejection.error();
    }
    if (isClientGone(cause)) {
      // Nobody is left to read the answer.
      LOG.debug("client went away: {}", cause.toString());
      return new HttpError(500, "internal server error", null);
    }
    if (cause instanceof Negotiation.NotAcceptable notAcceptable) {
      return new HttpError(406, "not acceptable", notAcceptable.supported());
    }
    if (cause instanceof Negotiation.UnsupportedMediaType) {
      return new HttpError(415, "unsupported media type", Negotiation.BODY_TYPES);
    }
    if (cause instanceof BodyException || cause instanceof SluiceException.InvalidRequest) {
      return new HttpError(400, cause.getMessage(), null);
    }
    if (cause instanceof SluiceException.NotFound) {
      return new HttpError(404, cause.getMessage(), null);
    }
    if (cause instanceof SluiceException.Conflict) {
      return new HttpError(409, cause.getMessage(), null);
    }
    if (cause instanceof SluiceException.Unprocessable) {
      return new HttpError(422, cause.getMessage(), null);
    }
    if (cause instanceof StorageException) {
      LOG.error("storage failure", cause);
    } else {
      LOG.error("unexpected failure", cause);
    }
    return new HttpError(500, "internal server error", null);
  }

  /**
   * Whether {@code failure} only says that the client closed or reset its connection, which is
   * routine and logged at DEBUG, never as a server error.
   */
  public static boolean isClientGone(Throwable failure) {
    return failure instanceof HttpClosedException
        || failure instanceof ClosedChannelException
        || failure instanceof SocketException
        // The native transports report resets and broken pipes with their own IOException.
        || failure instanceof IOException && failure.getClass().getName().startsWith("io.netty.");
  }

  /**
   * For failures of a connection outside any request (a listener's exception handler): a client
   * that went away or sent what cannot be decoded (already answered 400, 414 or 431, or a failed
   * TLS handshake) is routine.
   */
  public static void logConnectionFailure(Throwable failure) {
    if (isClientGone(failure) || failure instanceof DecoderException
        || failure instanceof TooLongFrameException
        // Header and version validation in the decoder.
        || failure instanceof IllegalArgumentException) {
      LOG.debug("client connection failed: {}", failure.toString());
    } else {
      LOG.warn("client connection failed: {}", failure.toString());
    }
  }

  /** {@code {"error":"<message>"}}, for answers written outside an {@link Exchange}. */
  byte[] json() {
    try {
      return Format.JSON.mapper().writeValueAsBytes(
          Format.JSON.mapper().createObjectNode().put("error", message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An HTTP/1.1 response's status line, CR LF included, as Vert.x writes it. */
  static String statusLine(int status) {
    return "HTTP/1.1 " + status + " " + HttpResponseStatus.valueOf(status).reasonPhrase() + "\r\n";
  }

  static HttpError bodyTooLarge(long maxBodyBytes) {
    return new HttpError(413, "request body exceeds the limit of " + maxBodyBytes + " bytes", null);
  }

  static HttpError bodyTimedOut(long timeoutMs) {
    return new HttpError(408,
        "request body timed out: nothing received for " + timeoutMs + " ms", null);
  }

  public static HttpError notFound() {
    return new HttpError(404, "not found", null);
  }

  public static HttpError methodNotAllowed() {
    return new HttpError(405, "method not allowed", null);
  }
}
