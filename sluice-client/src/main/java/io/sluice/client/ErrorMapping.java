package io.sluice.client;

/** Chooses the exception type for an error status (API.md §3.6). */
final class ErrorMapping {
  private ErrorMapping() {}

  static SluiceException toException(int status, String message, String request) {
    if (status == 404) {
      return new NotFoundException(status, message, request);
    }
    if (status == 409) {
      return new ConflictException(status, message, request);
    }
    if (status == 400 || status == 422) {
      return new ValidationException(status, message, request);
    }
    if (status == 503) {
      return new UnavailableException(status, message, request, null, null);
    }
    if (status >= 500) {
      return new ServerException(status, message, request);
    }
    return new SluiceException(status, message, request);
  }
}
