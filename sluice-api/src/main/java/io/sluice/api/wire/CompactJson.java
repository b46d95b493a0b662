package io.sluice.api.wire;

/**
 * Finds where a JSON value ends in checked JSON text, when the value is already in the form the
 * re-encoding of {@link EnqueueParser} would give it: no whitespace between its tokens (a take
 * stream writes one job per line, so a payload may hold no line break) and no number with an
 * exponent, whose value the re-encoding checks against the range of a double.
 */
final class CompactJson {
  private CompactJson() {}

  /** The index just past the value starting at {@code start}, or -1 when it is not compact. */
  static int end(byte[] text, int start) {
    int depth = 0;
    boolean inString = false;
    for (int i = start; i < text.length; i++) {
      byte b = text[i];
      if (inString) {
        if (b == '\\') {
          i++;
        } else if (b == '"') {
          inString = false;
          if (depth == 0) {
            return i + 1;
          }
        }
        continue;
      }
      switch (b) {
        case '"' -> inString = true;
        case '{', '[' -> depth++;
        case '}', ']' -> {
          if (depth == 0) {
            return i;
          }
          if (--depth == 0) {
            return i + 1;
          }
        }
        case ',' -> {
          if (depth == 0) {
            return i;
          }
        }
        case ' ', '\n', '\r', '\t' -> {
          return depth == 0 ? i : -1;
        }
        case 'e', 'E' -> {
          if (i > start && isNumberByte(text[i - 1])) {
            return -1;
          }
        }
        default -> { }
      }
    }
    return depth == 0 && !inString ? text.length : -1;
  }

  private static boolean isNumberByte(byte b) {
    return (b >= '0' && b <= '9') || b == '.';
  }
}
