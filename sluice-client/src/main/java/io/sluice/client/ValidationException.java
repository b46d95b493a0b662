package io.sluice.client;

/** HTTP 400 or 422: the request is malformed or breaks a rule of the API. */
public class ValidationException extends SluiceException {
  public ValidationException(int status, String serverMessage, String request) {
    super(status, serverMessage, request);
  }
}
