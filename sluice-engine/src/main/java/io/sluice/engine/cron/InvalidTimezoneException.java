package io.sluice.engine.cron;

/** A time zone id that {@link CronZones#parse} does not know; the message is client-ready. */
public final class InvalidTimezoneException extends IllegalArgumentException {
  public InvalidTimezoneException(String id) {
    super("invalid timezone: \"" + id + "\"");
  }
}
