package io.sluice.client;

/** Thrown by a handler to fail its job permanently, without further retries. */
public class KillJobException extends RuntimeException {
  public KillJobException(String message) {
    super(message);
  }

  public KillJobException(String message, Throwable cause) {
    super(message, cause);
  }
}
