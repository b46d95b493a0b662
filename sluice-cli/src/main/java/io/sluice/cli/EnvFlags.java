package io.sluice.cli;

import java.util.Locale;
import java.util.Set;

/** Boolean environment variables (CLI.md §1.2): a few spellings of "no" are false. */
final class EnvFlags {
  private static final Set<String> FALSE = Set.of("", "0", "false", "no", "off", "n", "f");

  private EnvFlags() {}

  static boolean isSet(String name) {
    String value = System.getenv(name);
    return value != null && !FALSE.contains(value.trim().toLowerCase(Locale.ROOT));
  }
}
