package io.sluice.engine.budget;

/**
 * A budget policy as a client wrote it, structurally valid but not yet checked against the rules
 * of BUDGETS.md §2.2. Absent optional fields are null; {@code partitioned} (X3) is the top-level
 * field, null when absent (false).
 */
public record PolicySpec(long allocation, String type, Long durationMs, Long burst,
    Boolean partitioned) {

  /** A policy that says nothing of partitions. */
  public PolicySpec(long allocation, String type, Long durationMs, Long burst) {
    this(allocation, type, durationMs, burst, null);
  }

  /** Whether a budget created with this policy is partitioned. */
  public boolean isPartitioned() {
    return Boolean.TRUE.equals(partitioned);
  }
}
