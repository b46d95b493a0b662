package io.sluice.client;

/** HTTP 409: the resource already exists or is still referenced. */
public class ConflictException extends SluiceException {
  public ConflictException(int status, String serverMessage, String request) {
    super(status, serverMessage, request);
  }
}
