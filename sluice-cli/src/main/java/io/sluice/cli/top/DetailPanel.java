package io.sluice.cli.top;

import java.util.ArrayList;
import java.util.List;

/** The {@code i} panel: the selected job's fields, full timestamps and payload, wrapped. */
final class DetailPanel {
  private DetailPanel() {}

  /** Exactly {@code height} lines of at most {@code width} characters. */
  static List<Line> render(JobRow job, int width, int height) {
    List<String> text = new ArrayList<>();
    if (job == null) {
      text.add("no job selected");
    } else {
      text.add("id          " + job.id() + "   status " + job.status());
      text.add("queue       " + job.queue() + "   type " + job.type() + "   priority "
          + job.priority() + "   attempts " + job.attempts());
      text.add("ready at    " + TextFormat.instant(job.readyAtMs()) + "   dequeued at "
          + TextFormat.instant(job.dequeuedAtMs()));
      if (!job.budgets().isEmpty()) {
        text.add("budgets     " + job.budgets());
      }
      String payload = job.payload() != null ? job.payload()
          : job.payloadBytes() > 0 ? "(" + job.payloadBytes() + " bytes: too large to show)"
          : "(none)";
      wrap("payload     ", payload, width, text);
    }
    List<Line> lines = new ArrayList<>();
    String title = "-- details ";
    lines.add(Line.of(title + "-".repeat(Math.max(0, width - title.length())), Line.Style.DIM));
    for (int i = 0; i < height - 1; i++) {
      String line = i < text.size() ? text.get(i) : "";
      lines.add(Line.plain(line.length() > width ? line.substring(0, width) : line));
    }
    return lines;
  }

  /** {@code label} then {@code value} cut into lines of {@code width}, indented under it. */
  private static void wrap(String label, String value, int width, List<String> into) {
    int room = Math.max(1, width - label.length());
    String indent = " ".repeat(label.length());
    for (int from = 0; from < value.length() || from == 0; from += room) {
      String piece = value.substring(from, Math.min(value.length(), from + room));
      into.add((from == 0 ? label : indent) + piece);
    }
  }
}
