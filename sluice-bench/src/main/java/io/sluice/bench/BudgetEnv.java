package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What every budget workload (and the query workload) needs for one run: options, client,
 * target server, and the run's tag for output lines. Also the few helpers they share (printing,
 * server memory, cleanup).
 */
record BudgetEnv(BenchOptions opt, ClientKit kit, Endpoint endpoint, ServerProcess server, String tag) {

  static final long CONNECT_TIMEOUT_SEC = 15;

  void say(String format, Object... args) {
    say(String.format(format, args));
  }

  void say(String line) {
    System.out.println(tag + ": " + line);
  }

  void sayLines(String lines) {
    for (String line : lines.split("\n")) {
      say(line);
    }
  }

  /** Server JVM memory, known only for a server the bench started itself. */
  ProcStatus.Memory memory() {
    return server == null ? ProcStatus.Memory.UNKNOWN : server.memory();
  }

  /**
   * Waits, at most {@code maxMillis}, until the server has used no more than {@link
   * Quiet#IDLE_CORE_FRACTION} of a core over {@link Quiet#WINDOW_MILLIS}: background work left
   * by an earlier step (storage compactions after a bulk load, garbage collection) then no longer
   * competes with the step measured next. Says how long it waited; does nothing for a server the
   * bench did not start, whose CPU it cannot see.
   */
  void awaitQuietServer(String label, long maxMillis) {
    if (server == null || server.cpuNanos() < 0) {
      return;
    }
    long start = System.nanoTime();
    long deadline = start + maxMillis * 1_000_000L;
    boolean quiet = false;
    while (!quiet && System.nanoTime() < deadline) {
      long cpuBefore = server.cpuNanos();
      long wallBefore = System.nanoTime();
      try {
        Thread.sleep(Quiet.WINDOW_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      quiet = Quiet.isQuiet(server.cpuNanos() - cpuBefore, System.nanoTime() - wallBefore);
    }
    say("%s server %s after %.1f s", label, quiet ? "quiet" : "still busy (measuring anyway)",
        (System.nanoTime() - start) / 1e9);
  }

  /**
   * True when the bench talks to a server it did not start (--url): the workload then removes
   * what it created, so the next run (or the next workload) starts from the same state. A
   * self-started server is thrown away after the run, so cleaning it would only waste time.
   */
  boolean sharedServer() {
    return server == null;
  }

  ServerCalls calls() {
    return new ServerCalls(kit, endpoint, 16, opt.phaseTimeoutSec());
  }

  static String nonce() {
    return String.format("%08x", ThreadLocalRandom.current().nextInt());
  }

  List<Context> contexts(int n) {
    List<Context> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(kit.context(i));
    }
    return list;
  }

  /** Best-effort removal of what a workload created on a shared server; problems are only reported. */
  void cleanUp(ServerCalls calls, ServerCalls.Call... steps) {
    if (!sharedServer()) {
      return;
    }
    for (ServerCalls.Call c : steps) {
      try {
        ServerCalls.Answer a = calls.call(c);
        if (a.status() / 100 != 2) {
          say("cleanup: %s answered %d: %s", c, a.status(), a.body());
        }
      } catch (BenchFailure e) {
        say("cleanup: " + e.getMessage());
      }
    }
  }

  /**
   * Workloads that compare two rounds of (a) on one server see the first round also warming the
   * server's JIT; says so when no --server-warmup-runs took care of that.
   */
  void warnIfCold(String workload) {
    if (opt.serverWarmupRuns() == 0) {
      say("[%s] note: cold server (--server-warmup-runs 0): the first round of (a) also warms the server's JIT"
          + " and tends to come out slower; use --server-warmup-runs 1 to compare like with like", workload);
    }
  }

  static ServerCalls.Call deleteBudget(String key) {
    return new ServerCalls.Call(HttpMethod.DELETE, "/budgets/" + key, null);
  }

  static ServerCalls.Call deleteQueue(String queue) {
    return new ServerCalls.Call(HttpMethod.DELETE, "/jobs?queue=" + queue, null);
  }

  static String percent(double pct) {
    return String.format("%+.1f%%", pct);
  }

  static String verdict(boolean met) {
    return met ? "met" : "NOT met";
  }
}
