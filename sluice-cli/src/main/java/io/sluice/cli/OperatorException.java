package io.sluice.cli;

/**
 * A problem the operator can fix (a bad option value, a missing or unreadable file): {@link Main}
 * prints it as {@code Error: <message>} on stderr and exits with status 1, without a stack trace.
 */
public class OperatorException extends RuntimeException {
  public OperatorException(String message) {
    super(message);
  }

  public OperatorException(String message, Throwable cause) {
    super(message, cause);
  }
}
