package io.sluice.engine.cron;

/**
 * A cron expression that cannot be parsed. The message is a short detail meant for a client, such
 * as {@code minute field: 60 is out of range 0-59}; callers add their own prefix.
 */
public final class InvalidCronExpressionException extends IllegalArgumentException {
  public InvalidCronExpressionException(String detail) {
    super(detail);
  }
}
