package io.sluice.cli.top;

import io.sluice.api.events.Tab;
import java.util.ArrayList;
import java.util.List;

/**
 * The table of the current tab: a header and one line per row, at full width (the screen cuts
 * and scrolls them horizontally). Column widths follow the longest value on the page, so a long
 * queue or type name is shown whole and reached with Left/Right.
 */
final class TabRows {
  static final int TOKEN_BAR_CELLS = 20;
  private static final String MATCH_MARK = "* ";
  private static final String NO_MARK = "  ";

  private TabRows() {}

  /** The header followed by the rows; the selected row is reversed, matches marked. */
  static List<Line> render(TopModel model, long nowMs) {
    return model.tab() == Tab.BUDGETS ? budgets(model, nowMs) : jobs(model, nowMs);
  }

  private static List<Line> jobs(TopModel model, long nowMs) {
    List<JobRow> rows = model.jobs();
    int queueWidth = "QUEUE".length();
    int typeWidth = "TYPE".length();
    for (JobRow row : rows) {
      queueWidth = Math.max(queueWidth, row.queue().length());
      typeWidth = Math.max(typeWidth, row.type().length());
    }
    String timeHeader = switch (model.tab()) {
      case IN_FLIGHT -> "RUNNING FOR";
      case READY -> "WAITING FOR";
      default -> "READY IN";
    };
    List<Line> lines = new ArrayList<>();
    lines.add(Line.of(NO_MARK + TextFormat.pad("ID", 25) + "  " + TextFormat.pad("QUEUE",
        queueWidth) + "  " + TextFormat.pad("TYPE", typeWidth) + "  PRI    ATT  "
        + TextFormat.padLeft(timeHeader, 11) + "  READY AT", Line.Style.BOLD));
    int selected = model.cursor().selectedIndex();
    for (int i = 0; i < rows.size(); i++) {
      JobRow row = rows.get(i);
      String text = (row.match() ? MATCH_MARK : NO_MARK) + TextFormat.pad(row.id(), 25) + "  "
          + TextFormat.pad(row.queue(), queueWidth) + "  " + TextFormat.pad(row.type(), typeWidth)
          + "  " + TextFormat.padLeft(Integer.toString(row.priority()), 5) + "  "
          + TextFormat.padLeft(Integer.toString(row.attempts()), 3) + "  "
          + TextFormat.padLeft(TextFormat.duration(age(model.tab(), row, nowMs)), 11) + "  "
          + TextFormat.instant(row.readyAtMs());
      lines.add(Line.of(text, i == selected ? Line.Style.REVERSE
          : row.match() ? Line.Style.MATCH : Line.Style.PLAIN));
    }
    return lines;
  }

  /** How long the job has run, waited, or has left to wait, by tab. */
  private static long age(Tab tab, JobRow row, long nowMs) {
    return switch (tab) {
      case IN_FLIGHT -> nowMs - row.dequeuedAtMs();
      case READY -> nowMs - row.readyAtMs();
      default -> row.readyAtMs() - nowMs;
    };
  }

  private static List<Line> budgets(TopModel model, long nowMs) {
    List<BudgetRow> rows = model.budgets();
    int keyWidth = "BUDGET".length();
    for (BudgetRow row : rows) {
      keyWidth = Math.max(keyWidth, row.key().length());
    }
    List<Line> lines = new ArrayList<>();
    lines.add(Line.of(NO_MARK + TextFormat.pad("BUDGET", keyWidth) + "  "
        + TextFormat.pad("TOKENS", TOKEN_BAR_CELLS + 2) + "  " + TextFormat.padLeft("AVAIL", 13)
        + "  IN FLIGHT    WAITING  NEXT TOKEN  PAUSED", Line.Style.BOLD));
    int selected = model.cursor().selectedIndex();
    for (int i = 0; i < rows.size(); i++) {
      BudgetRow row = rows.get(i);
      String next = row.nextTokenAtMs() == null ? "-"
          : "in " + TextFormat.duration(Math.max(0, row.nextTokenAtMs() - nowMs));
      String paused = row.pausedUntilMs() == null ? "-"
          : "until " + TextFormat.instant(row.pausedUntilMs());
      boolean partitioned = row.partitions() != null;
      String available = partitioned ? TextFormat.count(row.partitions()) + " parts"
          : row.tokens() + "/" + row.capacity() + (row.debt() > 0 ? " -" + row.debt() : "");
      String tokens = partitioned
          ? TextFormat.pad("per partition", TOKEN_BAR_CELLS + 2)
          : TextFormat.bar(row.tokens(), row.capacity(), TOKEN_BAR_CELLS);
      String text = NO_MARK + TextFormat.pad(row.key(), keyWidth) + "  " + tokens + "  "
          + TextFormat.padLeft(available, 13) + "  "
          + TextFormat.padLeft(TextFormat.count(row.inFlightJobs()), 9) + "  "
          + TextFormat.padLeft(TextFormat.count(row.waitingJobs()), 9) + "  "
          + TextFormat.padLeft(next, 10) + "  " + paused;
      lines.add(Line.of(text, i == selected ? Line.Style.REVERSE : Line.Style.PLAIN));
    }
    return lines;
  }
}
