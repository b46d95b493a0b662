package io.sluice.cli.top;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.events.Tab;
import java.util.ArrayList;
import java.util.List;

/**
 * What each key does in {@code sluice top} (CLI.md §10.4): it changes the {@link TopModel} and
 * returns the messages to send to the events feed. No terminal and no connection here, so every
 * key can be tested alone.
 */
public final class TopKeys {
  /** Columns moved by Left/Right. */
  static final int HORIZONTAL_STEP = 8;
  private static final Tab[] TABS = Tab.values();

  private final TopModel model;

  public TopKeys(TopModel model) {
    this.model = model;
  }

  /** The first subscription, for a list of {@code listRows} rows. */
  public List<ObjectNode> start(int listRows) {
    model.cursor().pageRows(listRows);
    return List.of(subscribe());
  }

  /** The screen now has room for {@code listRows} rows: resubscribes when that changed. */
  public List<ObjectNode> layout(int listRows) {
    if (Math.max(1, listRows) == model.cursor().pageRows()) {
      return List.of();
    }
    model.cursor().pageRows(listRows);
    return List.of(subscribe());
  }

  public List<ObjectNode> press(Key key) {
    if (key.kind() == Key.Kind.CTRL_C) {
      model.quit();
      return List.of();
    }
    model.notice(""); // a notice answers the previous key or message; the next key dismisses it
    if (model.pendingDelete() != null) {
      return confirmDelete(key);
    }
    if (model.searchInput() != null) {
      return editSearch(key);
    }
    return command(key);
  }

  private List<ObjectNode> command(Key key) {
    ListCursor cursor = model.cursor();
    return switch (key.kind()) {
      case UP -> scrolled(cursor.move(-1));
      case DOWN -> scrolled(cursor.move(1));
      case PAGE_UP -> scrolled(cursor.movePages(-1));
      case PAGE_DOWN -> scrolled(cursor.movePages(1));
      case HOME -> scrolled(cursor.home());
      case END -> scrolled(cursor.end());
      case LEFT -> {
        model.scrollHorizontally(-HORIZONTAL_STEP);
        yield List.of();
      }
      case RIGHT -> {
        model.scrollHorizontally(HORIZONTAL_STEP);
        yield List.of();
      }
      case TAB -> switchTab(1);
      case BACK_TAB -> switchTab(TABS.length - 1);
      case ESCAPE -> clearSearch();
      case CHAR -> letter(key.ch());
      default -> List.of();
    };
  }

  private List<ObjectNode> letter(char c) {
    ListCursor cursor = model.cursor();
    switch (c) {
      case 'q':
        model.quit();
        return List.of();
      case 'g':
        return scrolled(cursor.home());
      case 'G':
        return scrolled(cursor.end());
      case 'i':
        model.toggleDetails();
        return List.of();
      case 'p':
        model.togglePaused();
        model.notice(model.paused() ? "paused: lists frozen, totals live (p resumes)" : "");
        return List.of(Requests.pause(model.paused()));
      case '/':
        model.startSearch();
        return List.of();
      case 'n':
        return find(true);
      case 'N':
        return find(false);
      case 'D':
        JobRow selected = model.selectedJob();
        if (selected == null) {
          model.notice("no job selected");
        } else {
          model.askDelete(selected);
        }
        return List.of();
      default:
        return List.of();
    }
  }

  private List<ObjectNode> editSearch(Key key) {
    SearchInput input = model.searchInput();
    switch (key.kind()) {
      case TAB, BACK_TAB -> input.switchField();
      case BACKSPACE -> input.backspace();
      case ESCAPE -> model.cancelSearchInput();
      case CHAR -> input.type(key.ch());
      case ENTER -> {
        model.applySearchInput();
        List<ObjectNode> out = new ArrayList<>();
        out.add(Requests.setSearch(model.searchTypes(), model.searchQueues()));
        if (model.searching()) {
          out.addAll(findFromSelection(true));
        }
        return out;
      }
      default -> { }
    }
    return List.of();
  }

  private List<ObjectNode> confirmDelete(Key key) {
    TopModel.PendingDelete pending = model.pendingDelete();
    model.clearDelete();
    if (key.is('y') || key.is('Y')) {
      model.notice("deleting " + pending.id() + "…");
      return List.of(Requests.delete(pending.id()));
    }
    model.notice("delete cancelled");
    return List.of();
  }

  private List<ObjectNode> clearSearch() {
    if (!model.searching()) {
      return List.of();
    }
    model.clearSearch();
    model.notice("");
    return List.of(Requests.setSearch("", ""));
  }

  private List<ObjectNode> find(boolean forward) {
    if (!model.searching()) {
      model.notice("no search: press / to search by type and queue");
      return List.of();
    }
    return findFromSelection(forward);
  }

  private List<ObjectNode> findFromSelection(boolean forward) {
    if (!model.tab().listsJobs()) {
      model.notice("search applies to the job tabs");
      return List.of();
    }
    JobRow selected = model.selectedJob();
    if (selected == null) {
      return List.of();
    }
    return List.of(Requests.find(forward, selected.id(), model.cursor().selected()));
  }

  private List<ObjectNode> switchTab(int step) {
    model.switchTab(TABS[(model.tab().ordinal() + step) % TABS.length]);
    return List.of(subscribe());
  }

  private List<ObjectNode> scrolled(boolean pageChanged) {
    return pageChanged ? List.of(Requests.scroll(model.cursor().target())) : List.of();
  }

  private ObjectNode subscribe() {
    return Requests.subscribe(model.tab(), model.cursor().target(), model.cursor().pageRows(),
        model.searchTypes(), model.searchQueues(), model.refreshMs());
  }
}
