package io.sluice.bench;

import io.vertx.core.buffer.Buffer;

/** Shortens response bodies quoted in error messages so one bad answer cannot flood the output. */
public final class Snippet {
  private static final int MAX = 300;

  private Snippet() {}

  public static String of(Buffer body) {
    if (body == null) {
      return "";
    }
    // One line, so a quoted HTML error page does not break the line-oriented output.
    String s = body.toString().replaceAll("\\s+", " ").trim();
    return s.length() <= MAX ? s : s.substring(0, MAX) + "...(" + s.length() + " chars)";
  }
}
