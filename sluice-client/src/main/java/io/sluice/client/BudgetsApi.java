package io.sluice.client;

import static io.sluice.client.UrlParts.segment;

import io.sluice.client.model.Budget;
import io.sluice.client.model.BudgetPartition;
import io.sluice.client.model.BudgetPatch;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.BudgetWithState;
import io.sluice.client.model.Page;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

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
   * Every partition of the partitioned budget {@code key} in use (Sluice X3), with its live
   * state, by partition value, fetching page after page as the iteration advances.
   */
  public Iterable<BudgetPartition> partitions(String key) {
    return () -> new PageIterator<>(partitionPage(key, null, 0), this::partitionPage);
  }

  public Stream<BudgetPartition> streamPartitions(String key) {
    return StreamSupport.stream(partitions(key).spliterator(), false);
  }

  /**
   * One page of the partitions in use, by partition value, strictly after {@code from} (null:
   * from the first), at most {@code limit} of them (0: the server's default).
   */
  public Page<BudgetPartition> partitionPage(String key, String from, int limit) {
    Map<String, String> params = new LinkedHashMap<>();
    if (from != null) {
      params.put("from", from);
    }
    if (limit > 0) {
      params.put("limit", Integer.toString(limit));
    }
    return partitionPage(path(key) + "/partitions" + UrlParts.query(params));
  }

  /** The page behind a {@code next}/{@code prev} link of an earlier page of partitions. */
  public Page<BudgetPartition> partitionPage(String link) {
    return transport.call("GET", link, null, WireBodies.PartitionPage.class).toPage();
  }

  /** One partition and its live state; a partition not in use reads as a fresh, full one. */
  public BudgetPartition partition(String key, String partition) {
    return transport.call("GET", partitionPath(key, partition), null, BudgetPartition.class);
  }

  /** Pauses one partition for {@code duration} (Sluice X3, X6); the others run on. */
  public BudgetPartition pausePartition(String key, String partition, Duration duration) {
    return transport.call("POST", partitionPath(key, partition) + "/pause",
        Map.of("for_ms", duration.toMillis()), BudgetPartition.class);
  }

  /** Pauses one partition until {@code until} (Sluice X3, X6). */
  public BudgetPartition pausePartitionUntil(String key, String partition, Instant until) {
    return transport.call("POST", partitionPath(key, partition) + "/pause",
        Map.of("until", until.toEpochMilli()), BudgetPartition.class);
  }

  /** Ends one partition's pause at once (Sluice X3, X6). */
  public BudgetPartition resumePartition(String key, String partition) {
    return transport.call("POST", partitionPath(key, partition) + "/resume", null,
        BudgetPartition.class);
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

  private static String partitionPath(String key, String partition) {
    return path(key) + "/partitions/" + segment(partition);
  }
}
