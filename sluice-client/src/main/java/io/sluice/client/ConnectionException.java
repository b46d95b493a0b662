package io.sluice.client;

/** No response: the server could not be reached, or the connection failed or timed out. */
public class ConnectionException extends SluiceException {
  public ConnectionException(String request, Throwable cause) {
    super(0, String.valueOf(cause.getMessage()), request, cause);
  }
}
