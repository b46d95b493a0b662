package io.sluice.engine;

/**
 * Base of the small unchecked hierarchy that the transport maps to HTTP statuses. The message is
 * safe to show to a client.
 */
public class SluiceException extends RuntimeException {
  public SluiceException(String message) {
    super(message);
  }

  public SluiceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The named thing does not exist (404). */
  public static final class NotFound extends SluiceException {
    public NotFound(String message) {
      super(message);
    }
  }

  /** The request conflicts with current state (409). */
  public static final class Conflict extends SluiceException {
    public Conflict(String message) {
      super(message);
    }
  }

  /** The request is malformed (400). */
  public static final class InvalidRequest extends SluiceException {
    public InvalidRequest(String message) {
      super(message);
    }
  }

  /** The request is well-formed but cannot be applied (422). */
  public static final class Unprocessable extends SluiceException {
    public Unprocessable(String message) {
      super(message);
    }
  }
}
