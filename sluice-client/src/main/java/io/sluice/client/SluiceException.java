package io.sluice.client;

/**
 * A request the server refused or could not answer. {@link #status} is the HTTP status (0 when no
 * response arrived) and {@link #serverMessage} the {@code error} member of the server's body.
 */
public class SluiceException extends RuntimeException {
  private final int status;
  private final String serverMessage;

  public SluiceException(int status, String serverMessage, String request) {
    this(status, serverMessage, request, null);
  }

  public SluiceException(int status, String serverMessage, String request, Throwable cause) {
    super(request + " -> " + (status == 0 ? "" : status + " ") + serverMessage, cause);
    this.status = status;
    this.serverMessage = serverMessage;
  }

  public int status() {
    return status;
  }

  public String serverMessage() {
    return serverMessage;
  }
}
