package io.sluice.engine.budget;

/**
 * A budget policy as a client wrote it, structurally valid but not yet checked against the rules
 * of BUDGETS.md §2.2. Absent optional fields are null; an absent {@code durable} (X4) is false.
 */
public record PolicySpec(long allocation, String type, Long durationMs, Long burst,
    boolean durable) {

  /** A policy that is not durable. */
  public PolicySpec(long allocation, String type, Long durationMs, Long burst) {
    this(allocation, type, durationMs, burst, false);
  }
}
