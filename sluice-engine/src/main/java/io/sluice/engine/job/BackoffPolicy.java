package io.sluice.engine.job;

/**
 * The retry delay formula {@code base_ms + attempts^exponent * 1000 + U * jitter_ms * attempts}.
 *
 * <p>The power term is in seconds, so the defaults (15 s, 4, 30 s) spread 25 retries over about
 * 25 days.
 */
public record BackoffPolicy(long baseMs, float exponent, long jitterMs) {
  public static final BackoffPolicy DEFAULT = new BackoffPolicy(15_000, 4.0f, 30_000);

  /**
   * @param attempts failures so far, including the one just reported (at least 1)
   * @param uniform a value in [0, 1) chosen at the edge, so the engine stays deterministic
   */
  public long delayMs(int attempts, double uniform) {
    double delay =
        baseMs + Math.pow(attempts, exponent) * 1000.0 + uniform * jitterMs * (double) attempts;
    if (delay >= Long.MAX_VALUE || Double.isNaN(delay)) {
      return Long.MAX_VALUE;
    }
    return (long) delay;
  }
}
