package io.sluice.engine.cron;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Objects;

/** Validates the time zone ids that cron groups and entries carry. */
public final class CronZones {
  private CronZones() {}

  /**
   * Resolves {@code id} exactly as {@link ZoneId#of(String)} does: IANA region ids such as {@code
   * Europe/Rome}, plus {@code UTC}, {@code Z} and fixed offsets such as {@code +02:00}.
   *
   * @throws InvalidTimezoneException if the id is malformed or names no known region
   */
  public static ZoneId parse(String id) {
    Objects.requireNonNull(id, "id");
    try {
      return ZoneId.of(id);
    } catch (DateTimeException e) {
      throw new InvalidTimezoneException(id);
    }
  }
}
