package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;
import java.util.regex.Pattern;

/**
 * Checks the values of the {@code sluice tls} options that picocli cannot: day counts, common
 * names, and client names, which also name files and so must not reach outside the directory.
 */
final class TlsOptionValues {
  /** A hundred years; far enough for a CA, and well inside what X.509 dates can express. */
  static final int MAX_DAYS = 36_500;
  /** The X.509 upper bound on a common name. */
  static final int MAX_COMMON_NAME_LENGTH = 64;
  private static final Pattern CLIENT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]*");

  private TlsOptionValues() {}

  static int days(String value, String option) {
    try {
      int days = Integer.parseInt(value.trim());
      if (days >= 1 && days <= MAX_DAYS) {
        return days;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new OperatorException("invalid value for " + option + ": '" + value
        + "' (expected a whole number of days from 1 to " + MAX_DAYS + ")");
  }

  static String commonName(String value, String option) {
    if (value.isBlank() || value.length() > MAX_COMMON_NAME_LENGTH) {
      throw new OperatorException("invalid value for " + option + ": '" + value
          + "' (expected 1 to " + MAX_COMMON_NAME_LENGTH + " characters)");
    }
    return value;
  }

  /** A client name becomes the common name and part of two file names. */
  static String clientName(String value, String option) {
    if (!CLIENT_NAME.matcher(value).matches() || value.contains("..")
        || value.length() > MAX_COMMON_NAME_LENGTH) {
      throw new OperatorException("invalid value for " + option + ": '" + value
          + "' (expected letters, digits, '.', '_', '-' or '@', starting with a letter or digit,"
          + " without '..', at most " + MAX_COMMON_NAME_LENGTH + " characters)");
    }
    return value;
  }
}
