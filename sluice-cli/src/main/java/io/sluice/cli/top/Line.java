package io.sluice.cli.top;

import java.util.ArrayList;
import java.util.List;

/** One screen line as styled spans of plain ASCII text; the terminal adapter maps the styles. */
public record Line(List<Span> spans) {
  /** How a span looks. */
  public enum Style { PLAIN, BOLD, REVERSE, DIM, MATCH, ALERT }

  public record Span(String text, Style style) {}

  public static Line of(String text, Style style) {
    return new Line(List.of(new Span(text, style)));
  }

  public static Line plain(String text) {
    return of(text, Style.PLAIN);
  }

  public String text() {
    StringBuilder text = new StringBuilder();
    for (Span span : spans) {
      text.append(span.text());
    }
    return text.toString();
  }

  /** This line without its first {@code columns} characters and cut at {@code width}. */
  public Line window(int columns, int width) {
    List<Span> kept = new ArrayList<>();
    int position = 0;
    int room = width;
    for (Span span : spans) {
      String text = span.text();
      int from = Math.max(0, Math.min(text.length(), columns - position));
      position += text.length();
      String visible = text.substring(from);
      if (room <= 0) {
        break;
      }
      if (visible.length() > room) {
        visible = visible.substring(0, room);
      }
      if (!visible.isEmpty()) {
        kept.add(new Span(visible, span.style()));
        room -= visible.length();
      }
    }
    return new Line(List.copyOf(kept));
  }

  /** Builds a line span by span. */
  static final class Builder {
    private final List<Span> spans = new ArrayList<>();

    Builder add(String text, Style style) {
      spans.add(new Span(text, style));
      return this;
    }

    Builder add(String text) {
      return add(text, Style.PLAIN);
    }

    Line build() {
      return new Line(List.copyOf(spans));
    }
  }
}
