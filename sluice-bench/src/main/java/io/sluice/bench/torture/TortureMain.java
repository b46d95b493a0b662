package io.sluice.bench.torture;

import io.sluice.bench.BenchFailure;
import io.sluice.bench.ClientKit;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * {@code sluice-torture}: the crash-cycle soak (see {@link TortureOptions#USAGE}). Runs each
 * requested commit mode in turn on its own root directory, prints each mode's report, and exits
 * 0 only if every mode passed.
 */
public final class TortureMain {

  private TortureMain() {}

  public static void main(String[] args) {
    TortureOptions opt;
    try {
      opt = TortureOptions.parse(args);
    } catch (TortureOptions.UsageException e) {
      if (e.getMessage() == null) {
        System.out.print(TortureOptions.USAGE);
        System.exit(0);
      }
      System.err.println("sluice-torture: " + e.getMessage());
      System.err.print(TortureOptions.USAGE);
      System.exit(2);
      return;
    }
    int status;
    try {
      status = run(opt, System.out) ? 0 : 1;
    } catch (BenchFailure e) {
      System.err.println("sluice-torture: " + e.getMessage());
      status = 1;
    }
    System.exit(status);
  }

  /** Runs every mode of {@code opt}; true if all passed. The work directory is kept unless they did. */
  static boolean run(TortureOptions opt, PrintStream out) {
    Path work = workDir(opt);
    out.printf("sluice-torture: %d SIGKILL cycles per mode (%s), load %d-%d ms, seed %d, server %s, work dir %s%n",
        opt.cycles(), String.join(", ", opt.modes()), opt.minLoadMs(), opt.maxLoadMs(), opt.seed(),
        String.join(" ", opt.serverCommand()), work);
    Random random = new Random(opt.seed());
    List<TortureRun.Result> results = new ArrayList<>();
    try (ClientKit kit = new ClientKit(opt.clientThreads())) {
      for (String mode : opt.modes()) {
        TortureRun.Result r = new TortureRun(opt, mode, kit, work.resolve(mode), random, InstantSource.system(), out)
            .run();
        TortureReport.print(r, out);
        results.add(r);
      }
    }
    boolean ok = results.stream().allMatch(TortureRun.Result::ok);
    for (TortureRun.Result r : results) {
      out.printf("SUMMARY %s: %s in %,d s: %,d enqueues acknowledged, %,d acks acknowledged, %,d jobs redelivered,"
              + " %d lost, %d acknowledged then redelivered%n",
          r.mode(), r.ok() ? "PASS" : "FAIL", r.elapsedMs() / 1000,
          r.reconciliation().figures().get("enqueues acknowledged"),
          r.reconciliation().figures().get("acks acknowledged"),
          r.reconciliation().figures().get("jobs redelivered (same attempts as before)"),
          r.reconciliation().mustBeZero().get("lost acknowledged enqueues"),
          r.reconciliation().mustBeZero().get("acknowledged then redelivered"));
    }
    if (ok && opt.workDir() == null && !opt.keep()) {
      deleteRecursively(work);
    }
    return ok;
  }

  private static Path workDir(TortureOptions opt) {
    try {
      return opt.workDir() != null
          ? Files.createDirectories(opt.workDir())
          : Files.createTempDirectory("sluice-torture-");
    } catch (IOException e) {
      throw new BenchFailure("cannot create the work directory: " + e, e);
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("sluice-torture: could not delete " + dir + ": " + e);
    }
  }
}
