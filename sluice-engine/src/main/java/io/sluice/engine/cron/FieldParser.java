package io.sluice.engine.cron;

import java.util.regex.Pattern;

/**
 * Parses the syntax every field shares into a bit set of values (bit v set when v matches): {@code
 * *} or {@code ?}, a value, a range {@code a-b}, each optionally stepped with {@code /n} ({@code
 * a/n} runs from a to the field's maximum), and comma-separated lists of those.
 */
final class FieldParser {
  private static final Pattern ITEM = Pattern.compile("(\\*|\\?|\\w+(-\\w+)?)(/\\w+)?");

  private FieldParser() {}

  static long parse(CronField field, String text) {
    long bits = 0;
    for (String item : text.split(",", -1)) {
      bits |= parseItem(field, item);
    }
    return bits;
  }

  static long parseItem(CronField field, String item) {
    if (!ITEM.matcher(item).matches()) {
      throw field.invalid("invalid item \"" + item + "\"");
    }
    int slash = item.indexOf('/');
    String base = slash < 0 ? item : item.substring(0, slash);
    int step = slash < 0 ? 1 : step(field, item.substring(slash + 1));
    int first;
    int last;
    int dash = base.indexOf('-');
    if (base.equals("*") || base.equals("?")) {
      first = field.min;
      last = field.max;
    } else if (dash < 0) {
      first = field.value(base);
      last = slash < 0 ? first : field.max;
    } else {
      first = field.value(base.substring(0, dash));
      last = field.value(base.substring(dash + 1));
      if (field == CronField.DAY_OF_WEEK && last == 0 && first > 0) {
        // FRI-SUN: Sunday closes a weekday range as 7.
        last = 7;
      }
      if (first > last) {
        throw field.invalid("range " + base + " starts after it ends");
      }
    }
    long bits = 0;
    for (int value = first; value <= last; value += step) {
      bits |= 1L << value;
    }
    return bits;
  }

  private static int step(CronField field, String token) {
    int span = field.max - field.min + 1;
    if (!CronField.isNumber(token)) {
      throw field.invalid("invalid step \"" + token + "\"");
    }
    int step = token.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(token);
    if (step < 1 || step > span) {
      throw field.invalid("step " + token + " is out of range 1-" + span);
    }
    return step;
  }
}
