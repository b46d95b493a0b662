package io.sluice.bench;

import java.lang.management.ManagementFactory;

/**
 * CPU time consumed by the bench process itself. Reported next to each throughput phase so a
 * reader can tell whether the client, which shares the 2 cores with the server, was the limit.
 */
final class ProcessCpu {
  private ProcessCpu() {}

  /** @return process CPU time in nanoseconds, or -1 if the JVM does not expose it */
  static long nanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  /** CPU used between two {@link #nanos()} readings as a percentage of one core over {@code wallNanos}. */
  static double percentOfOneCore(long cpuStart, long cpuEnd, long wallNanos) {
    if (cpuStart < 0 || cpuEnd < 0 || wallNanos <= 0) {
      return -1;
    }
    return 100.0 * (cpuEnd - cpuStart) / wallNanos;
  }
}
