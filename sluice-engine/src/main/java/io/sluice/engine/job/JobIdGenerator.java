package io.sluice.engine.job;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Generates strictly increasing SCRU128-layout ids: 48-bit Unix milliseconds, 24-bit counter_hi,
 * 24-bit counter_lo and 32 bits of entropy.
 *
 * <p>Thread-safe; used at the edge (request handlers), so ids travel inside engine commands. When
 * the clock stalls or steps back, the previous timestamp is reused and the counters advance, so
 * order is kept within one process.
 */
public final class JobIdGenerator {
  private static final long COUNTER_MAX = 0xFFFFFFL;

  private final RandomGenerator random;
  private long lastMs = -1;
  private long counterHi;
  private long counterLo;

  /** A generator whose counters start and entropy come from the calling thread's random. */
  public JobIdGenerator() {
    this(ThreadLocalRandom.current());
  }

  /** A generator drawing its randomness from {@code random}: seeded, it repeats its ids. */
  public JobIdGenerator(RandomGenerator random) {
    this.random = random;
  }

  public synchronized JobId next(long nowMs) {
    if (nowMs > lastMs) {
      lastMs = nowMs;
      // Start the low counter in its lower half so a burst in one millisecond rarely overflows it.
      counterLo = random.nextLong(COUNTER_MAX >>> 1);
      counterHi = random.nextLong(COUNTER_MAX >>> 1);
    } else if (++counterLo > COUNTER_MAX) {
      counterLo = 0;
      if (++counterHi > COUNTER_MAX) {
        counterHi = 0;
        lastMs++;
      }
    }
    long entropy = random.nextLong() & 0xFFFFFFFFL;
    long hi = (lastMs << 16) | (counterHi >>> 8);
    long lo = ((counterHi & 0xFFL) << 56) | (counterLo << 32) | entropy;
    return new JobId(hi, lo);
  }
}
