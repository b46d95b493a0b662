package io.sluice.api.http;

import io.sluice.api.wire.BodyException;
import io.sluice.api.wire.Negotiation;
import io.sluice.engine.SluiceException;
import io.sluice.engine.store.StorageException;
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

  public static HttpError of(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
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
