package io.sluice.cli;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The heap's old generation: what it holds now, and a full collection of the heap. */
interface OldGeneration {
  /**
   * Pools of the collectors whose old generation is one space filled upward and freed only by a
   * full collection: the serial collector's ({@code bin/sluice}'s default) and the parallel one's.
   * G1, ZGC and Shenandoah reuse freed regions without one.
   */
  Set<String> FILLED_UPWARD = Set.of("Tenured Gen", "PS Old Gen");

  long usedBytes();

  void collectFully();

  /** This JVM's old generation, when its collector fills it upward; empty otherwise. */
  static Optional<OldGeneration> filledUpward() {
    return filledUpward(ManagementFactory.getMemoryPoolMXBeans());
  }

  static Optional<OldGeneration> filledUpward(List<MemoryPoolMXBean> pools) {
    return pools.stream()
        .filter(pool -> FILLED_UPWARD.contains(pool.getName()))
        .findFirst()
        .map(pool -> new OldGeneration() {
          @Override
          public long usedBytes() {
            return pool.getUsage().getUsed();
          }

          @Override
          public void collectFully() {
            System.gc();
          }
        });
  }
}
