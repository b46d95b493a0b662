package io.sluice.cli.top;

import io.sluice.api.events.Tab;
import java.util.ArrayList;
import java.util.List;

/**
 * Draws a {@link TopModel} as lines of text (CLI.md §10.4): header, counts, tabs, depth bar, the
 * tab's table, the optional detail panel, a notice or prompt line and the key hints. Pure: the
 * same model, size and time give the same screen, with no terminal involved.
 */
public final class ScreenRenderer {
  /** Lines above the table's rows: title, counts, tabs, depth bar, column header. */
  static final int HEADER_LINES = 5;
  /** Lines below the table: the notice/prompt line and the key hints. */
  static final int FOOTER_LINES = 2;
  static final int DETAIL_LINES = 8;
  private static final String HINTS = "Up/Down PgUp/PgDn move  Left/Right scroll  g/G top/end"
      + "  Tab/S-Tab switch  i details  p pause  / search  n/N next/prev  D delete  q quit";

  private ScreenRenderer() {}

  /** How many table rows fit: what the client subscribes for. */
  public static int listRows(int height, boolean details) {
    return Math.max(1, height - HEADER_LINES - FOOTER_LINES - (details ? DETAIL_LINES : 0));
  }

  /** Exactly {@code height} lines, none wider than {@code width}. */
  public static List<Line> render(TopModel model, int width, int height, long nowMs) {
    List<Line> screen = new ArrayList<>(height);
    screen.add(title(model, nowMs));
    screen.add(counts(model));
    screen.add(tabs(model));
    screen.add(depth(model, width));
    List<Line> table = TabRows.render(model, nowMs);
    int rows = listRows(height, model.details());
    for (int i = 0; i <= rows; i++) {
      Line line = i < table.size() ? table.get(i) : emptyRow(model, i);
      screen.add(line.window(model.horizontalScroll(), width));
    }
    if (model.details()) {
      screen.addAll(DetailPanel.render(model.selectedJob(), width, DETAIL_LINES));
    }
    screen.add(prompt(model).window(0, width));
    screen.add(Line.of(HINTS, Line.Style.DIM).window(0, width));
    while (screen.size() > height) {
      screen.remove(HEADER_LINES); // a terminal too small for the layout loses table rows first
    }
    return screen;
  }

  private static Line title(TopModel model, long nowMs) {
    Line.Builder line = new Line.Builder()
        .add("sluice top", Line.Style.BOLD)
        .add("  " + model.url() + "  client " + model.clientVersion() + "  server "
            + model.serverVersion() + " (API " + model.apiVersion() + ")  up "
            + TextFormat.duration(model.uptimeMs(nowMs)));
    if (model.paused()) {
      line.add("  PAUSED", Line.Style.ALERT);
    }
    if (!model.connected()) {
      line.add("  NOT CONNECTED", Line.Style.ALERT);
    }
    return line.build();
  }

  private static Line counts(TopModel model) {
    StringBuilder text = new StringBuilder();
    model.counts().forEach((status, count) -> text.append(text.length() == 0 ? "" : "   ")
        .append(status.replace('_', ' ')).append(' ').append(TextFormat.count(count)));
    return Line.plain(text.length() == 0 ? "waiting for the server..." : text.toString());
  }

  private static Line tabs(TopModel model) {
    Line.Builder line = new Line.Builder();
    for (Tab tab : Tab.values()) {
      String label = " " + label(tab) + " (" + TextFormat.count(model.tabTotal(tab)) + ") ";
      line.add(label, tab == model.tab() ? Line.Style.REVERSE : Line.Style.PLAIN).add(" ");
    }
    return line.build();
  }

  static String label(Tab tab) {
    return switch (tab) {
      case IN_FLIGHT -> "In-Flight";
      case READY -> "Ready";
      case SCHEDULED -> "Scheduled";
      case BUDGETS -> "Budgets";
    };
  }

  /** Where the selection is in the whole list, as a marker on a track, and as numbers. */
  private static Line depth(TopModel model, int width) {
    ListCursor cursor = model.cursor();
    long total = cursor.total();
    String where = total == 0 ? "  empty"
        : "  row " + TextFormat.count(cursor.selected() + 1) + " of " + TextFormat.count(total);
    if (model.searching() && model.tab().listsJobs()) {
      where += "  matches " + (model.matches() == null ? "counting..."
          : TextFormat.count(model.matches()));
    }
    int track = Math.max(10, Math.min(60, width - 8 - where.length()));
    int marker = total <= 1 ? 0 : (int) (cursor.selected() * (track - 1) / (total - 1));
    String bar = "-".repeat(marker) + "#" + "-".repeat(track - 1 - marker);
    return new Line.Builder().add("depth [").add(bar, Line.Style.BOLD).add("]" + where).build();
  }

  private static Line emptyRow(TopModel model, int index) {
    boolean first = index == 1;
    if (first && model.cursor().total() == 0) {
      return Line.of("  (no " + label(model.tab()).toLowerCase(java.util.Locale.ROOT)
          + (model.tab() == Tab.BUDGETS ? ")" : " jobs)"), Line.Style.DIM);
    }
    return Line.plain("");
  }

  private static Line prompt(TopModel model) {
    TopModel.PendingDelete pending = model.pendingDelete();
    if (pending != null) {
      return Line.of("Delete job " + pending.id() + " (" + pending.description() + ")? [y/N] ",
          Line.Style.ALERT);
    }
    SearchInput input = model.searchInput();
    if (input != null) {
      boolean typeActive = input.active() == SearchInput.Field.TYPE;
      return new Line.Builder()
          .add("Search  type: ")
          .add("[" + input.types() + (typeActive ? "_" : "") + "]",
              typeActive ? Line.Style.REVERSE : Line.Style.PLAIN)
          .add("  queue: ")
          .add("[" + input.queues() + (typeActive ? "" : "_") + "]",
              typeActive ? Line.Style.PLAIN : Line.Style.REVERSE)
          .add("   Tab field  Enter search  Esc cancel", Line.Style.DIM)
          .build();
    }
    if (!model.notice().isEmpty()) {
      return Line.of(model.notice(), Line.Style.ALERT);
    }
    if (model.searching()) {
      return Line.plain("search: type [" + model.searchTypes() + "] queue ["
          + model.searchQueues() + "]  (n/N next/prev, Esc clears)");
    }
    return Line.plain("");
  }
}
