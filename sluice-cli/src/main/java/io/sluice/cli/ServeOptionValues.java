package io.sluice.cli;

/**
 * Parses the values of {@code sluice serve} flags, each failure a
 * {@link ServeCommand.StartupException} naming the flag and the value (CLI.md §1.2, §2.2): one
 * wording for every flag, whichever option group declares it.
 */
final class ServeOptionValues {
  private ServeOptionValues() {}

  static long integer(String value, String option, long min, long max) {
    try {
      long number = Long.parseLong(value.trim());
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new ServeCommand.StartupException("invalid value for " + option + ": '" + value
        + "' (expected an integer from " + min + " to " + max + ")");
  }

  static void oneOf(String value, String option, String... allowed) {
    for (String candidate : allowed) {
      if (candidate.equals(value)) {
        return;
      }
    }
    throw new ServeCommand.StartupException("invalid value for " + option + ": '" + value
        + "' (expected one of " + String.join(", ", allowed) + ")");
  }

  /** A SIZE (CLI.md §1.2) of at least {@code min} bytes; {@code expected} words the range. */
  static long bytes(String value, String option, long min, long max, String expected) {
    long bytes;
    try {
      bytes = Sizes.parseBytes(value, option);
    } catch (IllegalArgumentException e) {
      throw new ServeCommand.StartupException(e.getMessage());
    }
    if (bytes < min || bytes > max) {
      throw new ServeCommand.StartupException("invalid value for " + option + ": '" + value
          + "' (expected " + expected + ")");
    }
    return bytes;
  }

  /** A DURATION (CLI.md §1.2) in milliseconds, at least {@code minMs}. */
  static long durationMs(String value, String option, long minMs, String expected) {
    long ms;
    try {
      ms = Durations.parseMs(value, option);
    } catch (IllegalArgumentException e) {
      throw new ServeCommand.StartupException(e.getMessage());
    }
    if (ms < minMs) {
      throw new ServeCommand.StartupException("invalid value for " + option + ": '" + value
          + "' (expected " + expected + ")");
    }
    return ms;
  }
}
