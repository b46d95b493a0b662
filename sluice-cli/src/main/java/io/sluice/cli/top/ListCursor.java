package io.sluice.cli.top;

/**
 * The selected row of a tab and the window around it. The selection is a position in the tab's
 * whole list; the window ({@code offset}, {@code rows}) is the page the server sent last, and
 * {@code target} is the page the client wants. Moving the selection outside the wanted page moves
 * the page just enough to show it again: the caller then asks the server for it.
 */
final class ListCursor {
  private long total;
  private long selected;
  private long target;
  private long offset;
  private int rows;
  private int pageRows = 1;

  long total() {
    return total;
  }

  long selected() {
    return selected;
  }

  long target() {
    return target;
  }

  long offset() {
    return offset;
  }

  int pageRows() {
    return pageRows;
  }

  void pageRows(int count) {
    pageRows = Math.max(1, count);
    target = clampTarget(target);
  }

  /** Back to the top of an unknown list (a new tab). */
  void reset() {
    total = 0;
    selected = 0;
    target = 0;
    offset = 0;
    rows = 0;
  }

  /** A window arrived: the server's offset wins, and the selection stays inside it. */
  void window(long windowOffset, int windowRows, long listTotal) {
    total = listTotal;
    offset = windowOffset;
    rows = windowRows;
    target = windowOffset;
    if (windowRows == 0) {
      selected = 0;
    } else {
      selected = Math.max(windowOffset, Math.min(selected, windowOffset + windowRows - 1));
    }
  }

  /** Puts the selection on {@code position} (a search hit), paging as needed. */
  boolean select(long position) {
    return move(position - selected);
  }

  /**
   * Moves the selection by {@code delta} rows (a page is {@link #pageRows}); returns whether the
   * wanted page changed, so that the caller asks the server for it.
   */
  boolean move(long delta) {
    if (total == 0) {
      return false;
    }
    long next = Math.max(0, Math.min(total - 1, selected + delta));
    selected = next;
    long wanted = target;
    if (next < target) {
      wanted = next;
    } else if (next >= target + pageRows) {
      wanted = next - pageRows + 1;
    }
    wanted = clampTarget(wanted);
    boolean changed = wanted != target;
    target = wanted;
    return changed;
  }

  /**
   * Moves the selection and the page together by {@code pages} pages, so the selected row keeps
   * its place on screen; returns whether the wanted page changed.
   */
  boolean movePages(int pages) {
    if (total == 0) {
      return false;
    }
    long delta = (long) pages * pageRows;
    selected = Math.max(0, Math.min(total - 1, selected + delta));
    long wanted = clampTarget(target + delta);
    boolean changed = wanted != target;
    target = wanted;
    return changed;
  }

  /** Jumps to the first row; returns whether the wanted page changed. */
  boolean home() {
    return move(-selected);
  }

  /** Jumps to the last row; returns whether the wanted page changed. */
  boolean end() {
    return move(total - 1 - selected);
  }

  /** The selected row's index within the current window, or -1 when it is not in it. */
  int selectedIndex() {
    long index = selected - offset;
    return index >= 0 && index < rows ? (int) index : -1;
  }

  private long clampTarget(long wanted) {
    return Math.max(0, Math.min(wanted, total - pageRows));
  }
}
