package io.sluice.client;

/** HTTP 5xx: the server failed. */
public class ServerException extends SluiceException {
  public ServerException(int status, String serverMessage, String request) {
    super(status, serverMessage, request);
  }
}
