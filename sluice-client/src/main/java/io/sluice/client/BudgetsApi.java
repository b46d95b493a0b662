package io.sluice.client;

import static io.sluice.client.UrlParts.segment;

import io.sluice.client.model.Budget;
import io.sluice.client.model.BudgetPatch;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.BudgetWithState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Budget policies (BUDGETS.md §8.1–8.6). */
public final class BudgetsApi {
  private final HttpTransport transport;

  BudgetsApi(HttpTransport transport) {
    this.transport = transport;
  }

  /** All budgets, sorted by key. */
  public List<Budget> list() {
    return transport.call("GET", "/budgets", null, WireBodies.Budgets.class).budgets();
  }

  public Budget get(String key) {
    return transport.call("GET", path(key), null, Budget.class);
  }

  /** The budget with its live state (Sluice X1): tokens, in flight, waiting, next token. */
  public BudgetWithState state(String key) {
    return transport.call("GET", path(key) + "?state=true", null, BudgetWithState.class);
  }

  /**
   * Pauses the budget for {@code duration} (Sluice X6): nothing bound to it is dispatched and its
   * drip stops; a pause never shortens one already running.
   */
  public BudgetWithState pause(String key, Duration duration) {
    return transport.call("POST", path(key) + "/pause",
        Map.of("for_ms", duration.toMillis()), BudgetWithState.class);
  }

  /** Pauses the budget until {@code until} (Sluice X6). */
  public BudgetWithState pauseUntil(String key, Instant until) {
    return transport.call("POST", path(key) + "/pause",
        Map.of("until", until.toEpochMilli()), BudgetWithState.class);
  }

  /** Ends the budget's pause at once (Sluice X6). */
  public BudgetWithState resume(String key) {
    return transport.call("POST", path(key) + "/resume", null, BudgetWithState.class);
  }

  /**
   * {@code POST}: creates, never overwrites; {@link ConflictException} if the key exists, so
   * every instance can declare its budgets at boot without clobbering an operator's changes.
   */
  public Budget create(String key, BudgetPolicy policy) {
    return transport.call("POST", path(key), policy, Budget.class);
  }

  /** {@code PUT}: creates or replaces the whole policy. */
  public Budget put(String key, BudgetPolicy policy) {
    return transport.call("PUT", path(key), policy, Budget.class);
  }

  public Budget patch(String key, BudgetPatch patch) {
    return transport.call("PATCH", path(key), patch, Budget.class);
  }

  /** {@link ConflictException} while unfinished jobs or cron entries still use the budget. */
  public void delete(String key) {
    transport.call("DELETE", path(key), null);
  }

  private static String path(String key) {
    return "/budgets/" + segment(key);
  }
}
