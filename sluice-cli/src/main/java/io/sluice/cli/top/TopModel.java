package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.events.Tab;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code sluice top} shows, without a terminal: what the server last said (status,
 * the current tab's window or budgets) and what the operator did (tab, selection, search,
 * details, pause, a delete awaiting confirmation). {@link TopKeys} changes it on key presses;
 * {@link ScreenRenderer} draws it.
 */
public final class TopModel {
  /** A job delete awaiting its [y/N] answer. */
  public record PendingDelete(String id, String description) {}

  private final String url;
  private final String clientVersion;
  private final long refreshMs;

  private String serverVersion = "?";
  private String apiVersion = "?";
  private long uptimeMs;
  private long uptimeAtMs;
  private final Map<String, Long> counts = new LinkedHashMap<>();

  private Tab tab = Tab.IN_FLIGHT;
  private final Map<Tab, Long> tabTotals = new EnumMap<>(Tab.class);
  private final ListCursor cursor = new ListCursor();
  private List<JobRow> jobs = List.of();
  private List<BudgetRow> budgets = List.of();
  private Long matches;
  private int horizontalScroll;
  private boolean details;
  private boolean paused;

  private String searchTypes = "";
  private String searchQueues = "";
  private SearchInput searchInput;
  private String pendingFoundId;
  private PendingDelete pendingDelete;

  private String notice = "";
  private boolean connected;
  private boolean quit;

  public TopModel(String url, String clientVersion, long refreshMs) {
    this.url = url;
    this.clientVersion = clientVersion;
    this.refreshMs = refreshMs;
  }

  // ---- messages from the server ------------------------------------------------------------

  /** Applies one server message (docs/events.md); {@code nowMs} is when it arrived. */
  public void apply(JsonNode message, long nowMs) {
    connected = true;
    switch (message.path("type").asText()) {
      case "status" -> status(message, nowMs);
      case "heartbeat" -> {
        uptimeMs = message.path("uptime_ms").asLong();
        uptimeAtMs = nowMs;
      }
      case "window" -> window(message);
      case "budgets" -> budgets(message);
      case "found" -> found(message);
      case "deleted" -> notice = "deleted " + message.path("id").asText();
      case "error" -> notice = "error: " + message.path("message").asText();
      default -> { } // "changed": the status and window that follow carry the news
    }
  }

  /** The connection ended or could not be made. */
  public void disconnected(String reason) {
    connected = false;
    notice = "disconnected: " + reason + "; reconnecting (q quits)";
  }

  /** The feed is back after a disconnection. */
  public void reconnected() {
    notice = "reconnected";
  }

  private void status(JsonNode message, long nowMs) {
    serverVersion = message.path("server_version").asText("?");
    apiVersion = message.path("api_version").asText("?");
    uptimeMs = message.path("uptime_ms").asLong();
    uptimeAtMs = nowMs;
    counts.clear();
    message.path("counts").fields().forEachRemaining(e -> counts.put(e.getKey(),
        e.getValue().asLong()));
    for (Tab each : Tab.values()) {
      tabTotals.put(each, each.listsJobs() ? counts.getOrDefault(each.status().wireName(), 0L)
          : message.path("budgets").asLong());
    }
  }

  private void window(JsonNode message) {
    if (Tab.fromWireName(message.path("tab").asText()) != tab) {
      return; // an answer for the tab the operator just left
    }
    List<JobRow> rows = new ArrayList<>();
    message.path("jobs").forEach(row -> rows.add(JobRow.from(row)));
    jobs = List.copyOf(rows);
    JsonNode count = message.get("matches");
    matches = count == null || count.isNull() ? null : count.asLong();
    cursor.window(message.path("offset").asLong(), rows.size(), message.path("total").asLong());
    if (pendingFoundId != null) {
      for (int i = 0; i < rows.size(); i++) {
        if (rows.get(i).id().equals(pendingFoundId)) {
          cursor.select(cursor.offset() + i);
          pendingFoundId = null;
        }
      }
    }
  }

  private void budgets(JsonNode message) {
    if (tab != Tab.BUDGETS) {
      return;
    }
    List<BudgetRow> rows = new ArrayList<>();
    message.path("budgets").forEach(budget -> rows.add(BudgetRow.from(budget)));
    budgets = List.copyOf(rows);
    tabTotals.put(Tab.BUDGETS, message.path("total").asLong());
    cursor.window(message.path("offset").asLong(), rows.size(), message.path("total").asLong());
  }

  private void found(JsonNode message) {
    JsonNode id = message.get("id");
    if (id == null || id.isNull()) {
      notice = "no more matches " + (message.path("direction").asText().equals("next")
          ? "below" : "above");
    } else {
      pendingFoundId = id.asText();
      notice = "";
    }
  }

  // ---- state changed by keys (see TopKeys) ------------------------------------------------

  void switchTab(Tab next) {
    tab = next;
    cursor.reset();
    jobs = List.of();
    budgets = List.of();
    matches = null;
    horizontalScroll = 0;
  }

  void scrollHorizontally(int columns) {
    horizontalScroll = Math.max(0, horizontalScroll + columns);
  }

  void toggleDetails() {
    details = !details;
  }

  void togglePaused() {
    paused = !paused;
  }

  void startSearch() {
    searchInput = new SearchInput(searchTypes, searchQueues);
  }

  void cancelSearchInput() {
    searchInput = null;
  }

  /** Makes the typed search the current one. */
  void applySearchInput() {
    searchTypes = searchInput.types().strip();
    searchQueues = searchInput.queues().strip();
    searchInput = null;
  }

  void clearSearch() {
    searchTypes = "";
    searchQueues = "";
    matches = null;
  }

  void askDelete(JobRow row) {
    pendingDelete = new PendingDelete(row.id(), row.type() + " in " + row.queue());
  }

  void clearDelete() {
    pendingDelete = null;
  }

  void notice(String text) {
    notice = text;
  }

  void quit() {
    quit = true;
  }

  // ---- reads -------------------------------------------------------------------------------

  /** The selected job, or null (another tab, an empty list, a window still on its way). */
  public JobRow selectedJob() {
    int index = cursor.selectedIndex();
    return tab.listsJobs() && index >= 0 && index < jobs.size() ? jobs.get(index) : null;
  }

  public String url() {
    return url;
  }

  public String clientVersion() {
    return clientVersion;
  }

  public String serverVersion() {
    return serverVersion;
  }

  public String apiVersion() {
    return apiVersion;
  }

  /** The server's uptime at {@code nowMs}, counted on from its last report. */
  public long uptimeMs(long nowMs) {
    return uptimeMs + Math.max(0, nowMs - uptimeAtMs);
  }

  public Map<String, Long> counts() {
    return counts;
  }

  public long tabTotal(Tab which) {
    return tabTotals.getOrDefault(which, 0L);
  }

  public Tab tab() {
    return tab;
  }

  ListCursor cursor() {
    return cursor;
  }

  public List<JobRow> jobs() {
    return jobs;
  }

  public List<BudgetRow> budgets() {
    return budgets;
  }

  public Long matches() {
    return matches;
  }

  public int horizontalScroll() {
    return horizontalScroll;
  }

  public boolean details() {
    return details;
  }

  public boolean paused() {
    return paused;
  }

  public String searchTypes() {
    return searchTypes;
  }

  public String searchQueues() {
    return searchQueues;
  }

  public boolean searching() {
    return !searchTypes.isEmpty() || !searchQueues.isEmpty();
  }

  /** The search bar being typed in, or null. */
  public SearchInput searchInput() {
    return searchInput;
  }

  public PendingDelete pendingDelete() {
    return pendingDelete;
  }

  public String notice() {
    return notice;
  }

  public boolean connected() {
    return connected;
  }

  public boolean quitting() {
    return quit;
  }

  public long refreshMs() {
    return refreshMs;
  }
}
