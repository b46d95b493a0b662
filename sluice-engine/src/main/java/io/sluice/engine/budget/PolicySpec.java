package io.sluice.engine.budget;

/**
 * A budget policy as a client wrote it, structurally valid but not yet checked against the rules
 * of BUDGETS.md §2.2. Absent optional fields are null; an absent {@code durable} (X4) is false;
 * {@code partitioned} (X3) is null when absent (false).
 */
public record PolicySpec(long allocation, String type, Long durationMs, Long burst,
    boolean durable, Boolean partitioned) {

  /** A policy that is not durable and says nothing of partitions. */
  public PolicySpec(long allocation, String type, Long durationMs, Long burst) {
    this(allocation, type, durationMs, burst, false, null);
  }

  /** A policy that says nothing of partitions. */
  public PolicySpec(long allocation, String type, Long durationMs, Long burst,
      boolean durable) {
    this(allocation, type, durationMs, burst, durable, null);
  }

  /** Whether a budget created with this policy is partitioned. */
  public boolean isPartitioned() {
    return Boolean.TRUE.equals(partitioned);
  }
}
