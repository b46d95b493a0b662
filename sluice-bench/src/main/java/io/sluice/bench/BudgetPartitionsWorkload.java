package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.BudgetOverheadWorkload.Totals;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * budget-partitions (X3): workload (a) on the same server with every job bound to a roomy plain
 * concurrency budget, then to a partitioned one whose every partition holds one slot, the jobs
 * spread over {@code --partitions} partition values (0: a partition per job, so with
 * {@code --jobs 1000000} a million partitions are active at once). Passes run A B B A like
 * budget-overhead, so drift within a run cancels.
 *
 * <p>Just before each drain starts, with every job enqueued and waiting in its pool, the server's
 * heap after a full collection is read (jcmd) and, on the partitioned side, the number of
 * partitions it holds (X1 {@code partitions}). The heap of the partitioned side less that of the
 * plain side is what the partitions themselves cost; the drain rates give the dispatches per
 * second with that many partitions active, and the partitioned binding's overhead (target:
 * at most 10%).
 */
final class BudgetPartitionsWorkload {
  static final String PLAIN = "roomy";
  static final String PARTITIONED = "roomy-per-tenant";
  private static final String PLAIN_POLICY =
      "{\"allocation\":1000000,\"strategy\":{\"type\":\"while_in_flight\"}}";
  private static final String PARTITIONED_POLICY =
      "{\"allocation\":1,\"strategy\":{\"type\":\"while_in_flight\"},\"partitioned\":true}";
  static final double TARGET_PCT = 10.0;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BudgetEnv env;

  BudgetPartitionsWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run(int runNumber) {
    BenchOptions opt = env.opt();
    boolean partitionedFirst = runNumber % 2 == 0;
    int partitions = opt.partitions() == 0 ? opt.jobs() : opt.partitions();
    IntFunction<String> partitionOf = seq -> "t" + (seq % partitions);
    try (ServerCalls calls = env.calls()) {
      env.warnIfCold("partitions");
      calls.putBudget(PLAIN, PLAIN_POLICY);
      calls.putBudget(PARTITIONED, PARTITIONED_POLICY);
      List<ThroughputResult> plain = new ArrayList<>();
      List<ThroughputResult> partitioned = new ArrayList<>();
      List<Long> plainHeap = new ArrayList<>();
      List<Long> partitionedHeap = new ArrayList<>();
      List<Long> heldPartitions = new ArrayList<>();
      for (boolean isPartitioned : BudgetOverheadWorkload.passOrder(partitionedFirst)) {
        ThroughputWorkload pass = new ThroughputWorkload(opt, env.kit(), env.endpoint(),
            isPartitioned ? PARTITIONED : PLAIN);
        if (isPartitioned) {
          pass.withPartitions(partitionOf);
        }
        pass.withDrainHook(new ThroughputWorkload.DrainHook() {
          @Override
          public void beforeGo() {
            (isPartitioned ? partitionedHeap : plainHeap).add(heapKiB());
            if (isPartitioned) {
              heldPartitions.add(heldPartitions(calls));
            }
          }

          @Override
          public void drained() {}
        });
        ThroughputResult r = pass.run(BudgetEnv.nonce());
        env.sayLines(r.describe(isPartitioned ? "[a partitioned]" : "[a plain]"));
        (isPartitioned ? partitioned : plain).add(r);
      }
      Totals p = Totals.of(plain);
      Totals t = Totals.of(partitioned);
      double drainPct = BudgetOverheadWorkload.overheadPct(p.drainRate(), t.drainRate());
      double enqueuePct = BudgetOverheadWorkload.overheadPct(p.enqueueRate(), t.enqueueRate());
      long plainHeapMiB = medianMiB(plainHeap);
      long partitionedHeapMiB = medianMiB(partitionedHeap);
      env.say("[partitions] %,d jobs over %,d partitions; partitions held before the drains: %s",
          opt.jobs(), partitions, heldPartitions);
      env.say("[partitions] heap after GC with every job waiting: plain %,d MiB, partitioned %,d"
          + " MiB, difference %,d MiB", plainHeapMiB, partitionedHeapMiB,
          partitionedHeapMiB - plainHeapMiB);
      env.say("[partitions] drain   plain %,.0f jobs/s, partitioned %,.0f jobs/s -> %s time per job"
          + " (target <= %.0f%%: %s)", p.drainRate(), t.drainRate(), BudgetEnv.percent(drainPct),
          TARGET_PCT, BudgetEnv.verdict(drainPct <= TARGET_PCT));
      env.say("[partitions] enqueue plain %,.0f jobs/s, partitioned %,.0f jobs/s -> %s time per job"
          + " (target <= %.0f%%: %s) [order: %s]", p.enqueueRate(), t.enqueueRate(),
          BudgetEnv.percent(enqueuePct), TARGET_PCT, BudgetEnv.verdict(enqueuePct <= TARGET_PCT),
          partitionedFirst ? "partitioned plain plain partitioned"
              : "plain partitioned partitioned plain");

      Map<String, Object> m = new LinkedHashMap<>();
      // Every partition has a job waiting or in flight when the drain starts: all are held.
      boolean allHeld = heldPartitions.stream().allMatch(n -> n < 0 || n == partitions);
      m.put("ok", p.ok() && t.ok() && allHeld);
      m.put("order", partitionedFirst ? "partitioned-first" : "plain-first");
      m.put("partitions", partitions);
      m.put("partitions_held", heldPartitions);
      m.put("plain_heap_mib", plainHeapMiB);
      m.put("partitioned_heap_mib", partitionedHeapMiB);
      m.put("partitions_heap_mib", partitionedHeapMiB - plainHeapMiB);
      m.put("plain_drain_jobs_per_s", Math.round(p.drainRate()));
      m.put("partitioned_drain_jobs_per_s", Math.round(t.drainRate()));
      m.put("drain_overhead_pct", ThroughputResult.round(drainPct, 2));
      m.put("plain_enqueue_jobs_per_s", Math.round(p.enqueueRate()));
      m.put("partitioned_enqueue_jobs_per_s", Math.round(t.enqueueRate()));
      m.put("enqueue_overhead_pct", ThroughputResult.round(enqueuePct, 2));
      m.put("plain", plain.stream().map(ThroughputResult::toMap).toList());
      m.put("partitioned", partitioned.stream().map(ThroughputResult::toMap).toList());
      return m;
    } finally {
      try (ServerCalls calls = env.calls()) {
        env.cleanUp(calls, BudgetEnv.deleteBudget(PLAIN), BudgetEnv.deleteBudget(PARTITIONED));
      }
    }
  }

  private long heapKiB() {
    return env.server() == null ? -1 : env.server().heapUsedAfterGcKiB();
  }

  private static long medianMiB(List<Long> kib) {
    List<Long> known = kib.stream().filter(k -> k >= 0).sorted().toList();
    return known.isEmpty() ? -1 : known.get(known.size() / 2) / 1024;
  }

  /** X1 {@code partitions} of the partitioned budget, or -1 when it cannot be read. */
  private long heldPartitions(ServerCalls calls) {
    ServerCalls.Answer a = calls.call(new ServerCalls.Call(HttpMethod.GET,
        "/budgets/" + PARTITIONED + "?state=true", null));
    if (a.status() != 200) {
      return -1;
    }
    try {
      JsonNode held = JSON.readTree(a.body()).path("state").path("partitions");
      return held.canConvertToLong() ? held.asLong() : -1;
    } catch (IOException e) {
      return -1;
    }
  }
}
