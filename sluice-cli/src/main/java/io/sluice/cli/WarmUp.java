package io.sluice.cli;

import io.sluice.api.ApiConfig;
import io.sluice.api.FileTrees;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.EngineConfig;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before the real server opens its ports, runs a few thousand jobs through throwaway servers in
 * this JVM, in three rounds on a server each: enqueued in bulk and one by one, taken and
 * acknowledged over loopback HTTP. A fresh JVM runs the request paths interpreted until its JIT
 * compiles them, and on a small machine the compiling competes with the requests: measured on 2
 * cores, a cold server under 500 jobs/s delivered its first seconds of jobs with a p99 around one
 * second. The same classes serve the real server afterwards, compiled. The throwaway servers
 * live in a temporary directory, deleted afterwards; nothing of them reaches the real data.
 */
final class WarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);
  private static final long CACHE_BYTES = 16L << 20;
  /** Frequent, so that a take stream waiting in vain still wakes to see a stop or the deadline. */
  private static final long HEARTBEAT_MS = 200;
  /** Jobs of the rehearsal round: every kind of request, a few times each. */
  private static final int REHEARSAL_JOBS = 40;
  private static final int REHEARSAL_BULK_PERCENT = 50;
  /** The bulk round's share of jobs enqueued in bulk; the rest go one request each. */
  private static final int BULK_PERCENT = 90;
  /** At most this many jobs in the last round, all enqueued one request each. */
  private static final int SINGLE_ROUND_JOBS = 500;

  private WarmUp() {}

  /**
   * Runs {@code jobs} jobs through throwaway servers; never fails the start-up, and ends early
   * once {@code stopRequested} or after {@link WarmUpTraffic#TIME_LIMIT}. Its commits are
   * buffered whatever the real server's commit mode: waiting for the disk compiles nothing.
   *
   * @return the jobs taken and acknowledged
   */
  static int run(EngineConfig engine, int jobs, BooleanSupplier stopRequested) {
    long start = System.nanoTime();
    Path dir = null;
    int done = 0;
    LOG.info("warming up: {} jobs through throwaway servers in a temporary directory", jobs);
    try (AutoCloseable muted = LoggingSetup.mutedExcept(WarmUp.class)) {
      dir = Files.createTempDirectory("sluice-warm-up-");
      // Three rounds, each on a server of its own. A server's close loads classes its requests
      // never did (more kinds of futures and tasks); each one loaded after the request paths
      // were compiled makes that code, which assumed fewer kinds, invalid, and the real server
      // would start with those paths interpreted. So a short rehearsal, with traffic of every
      // kind but too little of it to compile much, loads them all first. The bulk round then
      // compiles what every job runs through, and the last round, every job on its own request
      // once the compiler has caught up, what each request runs once.
      long deadline = start + WarmUpTraffic.TIME_LIMIT.toNanos();
      int rehearsal = Math.min(jobs, REHEARSAL_JOBS);
      int singles = Math.min((jobs - rehearsal) / 3, SINGLE_ROUND_JOBS);
      List<Round> rounds = List.of(new Round("rehearsal", rehearsal, REHEARSAL_BULK_PERCENT),
          new Round("bulk", jobs - rehearsal - singles, BULK_PERCENT),
          new Round("singles", singles, 0));
      for (Round round : rounds) {
        if (round.jobs() > 0 && !stopRequested.getAsBoolean() && System.nanoTime() < deadline) {
          done += runOn(dir.resolve(round.name()), engine, round, stopRequested, deadline);
        }
      }
      LOG.info("warmed up with {} jobs in {} ms", done, (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) {
      // A slower first minute is no reason not to start.
      LOG.warn("warm-up skipped: {}", e.toString());
    } finally {
      if (dir != null) {
        deleteTree(dir);
      }
    }
    return done;
  }

  /** One round's jobs, {@code bulkPercent} of them enqueued in bulk, on a server of its own. */
  private record Round(String name, int jobs, int bulkPercent) {}

  private static int runOn(Path dir, EngineConfig engine, Round round,
      BooleanSupplier stopRequested, long deadlineNanos) throws Exception {
    ApiConfig api = new ApiConfig("127.0.0.1", 0, false, "127.0.0.1", 0, HEARTBEAT_MS,
        ServeCommand.defaultEventLoops());
    try (SluiceServer server = SluiceServer.start(new StoreConfig(dir.resolve("data"), CACHE_BYTES),
        engine, api, new EngineLoop.CommitModes(false, false), Clock.systemUTC())) {
      return new WarmUpTraffic(server.port(), stopRequested, deadlineNanos)
          .run(round.jobs(), round.bulkPercent());
    }
  }

  private static void deleteTree(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      LOG.warn("could not delete the warm-up directory {}: {}", dir, e.toString());
    }
  }

}
