package io.sluice.api.wire;

/**
 * Words for text in a request body that is not Unicode: which field holds it, as a path such as
 * {@code jobs[1].queue} (with {@code budgets[0].key}-style indexes), or the byte where it starts
 * when no string holds it.
 */
final class MalformedText {
  static final String BAD_UTF8 = Utf8.MALFORMED;
  static final String UNPAIRED_SURROGATE = "unpaired surrogate escape";

  private MalformedText() {}

  /**
   * @param path the path of the string value, or of the object whose field name it is; null
   *     when the problem is not inside a string
   */
  static String describe(String problem, String path, boolean fieldName, int offset) {
    if (path == null || (!fieldName && path.isEmpty())) {
      return problem + " at byte " + offset;
    }
    if (fieldName) {
      return path.isEmpty()
          ? problem + " in a field name"
          : problem + " in a field name inside `" + path + "`";
    }
    return problem + " in `" + path + "`";
  }

  /** Appends a field name to a path being built from the root down. */
  static void appendName(StringBuilder path, String name) {
    if (path.length() > 0) {
      path.append('.');
    }
    path.append(name);
  }

  static void appendIndex(StringBuilder path, int index) {
    path.append('[').append(index).append(']');
  }
}
