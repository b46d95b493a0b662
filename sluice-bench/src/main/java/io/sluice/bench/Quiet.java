package io.sluice.bench;

/** When a server counts as quiet: the rule of {@link BudgetEnv#awaitQuietServer}. */
final class Quiet {
  private Quiet() {}

  static final double IDLE_CORE_FRACTION = 0.10;
  static final long WINDOW_MILLIS = 500;

  /** True when {@code cpuNanos} of CPU over {@code wallNanos} is at most a tenth of a core. */
  static boolean isQuiet(long cpuNanos, long wallNanos) {
    return wallNanos > 0 && cpuNanos <= IDLE_CORE_FRACTION * wallNanos;
  }
}
