package io.sluice.bench.torture;

import io.sluice.bench.BenchFailure;
import io.sluice.bench.ClientKit;
import io.sluice.bench.Endpoint;
import io.sluice.bench.ServerLaunch;
import io.vertx.core.Future;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One commit mode's soak on the main thread: {@code cycles} times start the server (generation
 * 1, 2, ...) over the same root directory, load it for a random stretch, SIGKILL it and wait for
 * every request's outcome; then start it once more and drain it with workers alone until it stores
 * no job, stop it with SIGTERM, start it again to list what it still stores, and reconcile.
 */
final class TortureRun {

  /** One generation's life: how long the start took, what it had stored by then, and the load. */
  record Cycle(int gen, long startMs, long storedAtStart, long loadMs) {}

  /**
   * @param drain the drain generation, its load being the drain's duration
   * @param cleanExitStatus the server's exit status after SIGTERM once drained; must be 0
   */
  record Result(String mode, List<Cycle> cycles, Cycle drain, int cleanExitStatus, Reconciliation reconciliation,
      long elapsedMs, Path workDir) {

    boolean ok() {
      return cleanExitStatus == 0 && reconciliation.ok();
    }
  }

  private static final long STOP_TIMEOUT_SEC = 60;
  private static final long DRAIN_POLL_MS = 100;

  private final TortureOptions opt;
  private final String mode;
  private final ClientKit kit;
  private final Path dir;
  private final Random random;
  private final InstantSource clock;
  private final PrintStream out;
  private final ServerQueries queries = new ServerQueries();

  /** @param random draws the load durations */
  TortureRun(TortureOptions opt, String mode, ClientKit kit, Path dir, Random random, InstantSource clock,
      PrintStream out) {
    this.opt = opt;
    this.mode = mode;
    this.kit = kit;
    this.dir = dir;
    this.random = random;
    this.clock = clock;
    this.out = out;
  }

  Result run() {
    long t0 = System.nanoTime();
    Path logs;
    try {
      logs = Files.createDirectories(dir.resolve("logs"));
    } catch (IOException e) {
      throw new BenchFailure("cannot create " + dir + ": " + e, e);
    }
    String nonce = String.format("%08x", ThreadLocalRandom.current().nextInt());
    Ledger ledger = new Ledger();
    List<Cycle> cycles = new ArrayList<>();
    Cycle drain;
    int exitStatus;
    List<PresentJob> present;
    try (CrashableServer server = new CrashableServer(opt.serveCommand(mode), dir.resolve("root"), logs,
        opt.startupTimeoutSec())) {
      for (int gen = 1; gen <= opt.cycles(); gen++) {
        cycles.add(crashCycle(server, gen, ledger, nonce));
      }
      int drainGen = opt.cycles() + 1;
      long s0 = System.nanoTime();
      Endpoint endpoint = server.start(drainGen);
      long startMs = msSince(s0);
      long stored = queries.count(endpoint);
      long d0 = System.nanoTime();
      Generation g = new Generation(kit, endpoint, drainGen, ledger, opt, 0, nonce, clock);
      g.start();
      try {
        awaitEmpty(endpoint, g.anyStreamBroken(), server.log());
      } finally {
        g.stop();
      }
      drain = new Cycle(drainGen, startMs, stored, msSince(d0));
      exitStatus = server.stop(STOP_TIMEOUT_SEC);
      out.printf("%s: drained %,d stored jobs in %,d ms; SIGTERM exit status %d%n", mode, stored, drain.loadMs(),
          exitStatus);
      endpoint = server.start(drainGen + 1);
      present = queries.listAll(endpoint, nonce);
      server.stop(STOP_TIMEOUT_SEC);
    }
    Reconciliation r = Reconciliation.of(ledger.events(), ledger.sent(), present);
    return new Result(mode, cycles, drain, exitStatus, r, msSince(t0), dir);
  }

  private Cycle crashCycle(CrashableServer server, int gen, Ledger ledger, String nonce) {
    long s0 = System.nanoTime();
    Endpoint endpoint = server.start(gen);
    long startMs = msSince(s0);
    long stored = queries.count(endpoint);
    int mark = ledger.size();
    Generation g = new Generation(kit, endpoint, gen, ledger, opt, opt.producers(), nonce, clock);
    long loadMs = opt.minLoadMs() + random.nextInt(opt.maxLoadMs() - opt.minLoadMs() + 1);
    try {
      g.start();
      sleep(loadMs);
    } finally {
      server.kill();
      g.stop();
    }
    Map<Ledger.Kind, Integer> c = ledger.countsSince(mark);
    out.printf("%s: cycle %d/%d: up in %,d ms with %,d jobs stored; SIGKILL after %,d ms: acknowledged %,d enqueues,"
            + " %,d acks, %,d failures; %,d deliveries%n",
        mode, gen, opt.cycles(), startMs, stored, loadMs, c.get(Ledger.Kind.ENQUEUE_ACKED),
        c.get(Ledger.Kind.ACK_ACKED), c.get(Ledger.Kind.FAILURE_ACKED), c.get(Ledger.Kind.DELIVERED));
    return new Cycle(gen, startMs, stored, loadMs);
  }

  /** Polls {@code GET /jobs/count} until the server stores no job; fails if a take stream breaks. */
  private void awaitEmpty(Endpoint endpoint, Future<Void> broken, Path log) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(opt.drainTimeoutSec());
    long left = queries.count(endpoint);
    while (left > 0) {
      if (broken.failed()) {
        throw new BenchFailure("a take stream broke during the drain: " + broken.cause().getMessage()
            + "; last server output:\n" + ServerLaunch.logTail(log));
      }
      if (System.nanoTime() > deadline) {
        throw new BenchFailure("drain: " + left + " jobs still stored after " + opt.drainTimeoutSec() + " s");
      }
      sleep(DRAIN_POLL_MS);
      left = queries.count(endpoint);
    }
  }

  private static long msSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted", e);
    }
  }
}
