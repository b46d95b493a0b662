package io.sluice.bench.torture;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.torture.Ledger.Event;
import io.sluice.bench.torture.Reconciliation.GenCounts;
import io.sluice.bench.torture.TortureRun.Cycle;
import io.sluice.bench.torture.TortureRun.Result;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints one mode's result: the per-cycle table, the figures, the must-be-zero checks, the ledger
 * timeline of every offending job (up to {@value #MAX_TIMELINES}), and one machine-readable
 * {@code TORTURE {json}} line.
 */
final class TortureReport {

  private static final int MAX_TIMELINES = 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private TortureReport() {}

  static void print(Result result, PrintStream out) {
    Reconciliation r = result.reconciliation();
    String mode = result.mode();
    out.printf("== %s: %d SIGKILL cycles in %s ==%n", mode, result.cycles().size(), duration(result.elapsedMs()));
    out.println("cycle  load_ms  start_ms   stored  enq_ok enq_cut   deliv redeliv retried  ack_ok ack_cut"
        + " fail_ok fail_cut  bad");
    for (Cycle c : result.cycles()) {
      row(out, Integer.toString(c.gen()), c, r.genCounts(c.gen()));
    }
    row(out, "drain", result.drain(), r.genCounts(result.drain().gen()));
    out.println("(load_ms: load before the SIGKILL, or the drain's duration; stored: jobs stored when the server"
        + " came up; *_cut: requests cut off by the crash or refused; redeliv: a job delivered again with the same"
        + " attempts; retried: with more attempts; bad: must-be-zero violations caused by that cycle's crash)");
    r.figures().forEach((label, value) -> out.printf("  %-50s %,12d%n", label, value));
    out.printf("  %-50s %12d%n", "exit status of the drained server on SIGTERM", result.cleanExitStatus());
    out.println("must be zero:");
    r.mustBeZero().forEach((label, value) -> out.printf("  %-50s %,12d%s%n", label, value, value == 0 ? "" : "  <<<"));
    List<Integer> offenders = r.offenders();
    for (int seq : offenders.subList(0, Math.min(MAX_TIMELINES, offenders.size()))) {
      out.printf("job seq %d: %s%n", seq, String.join(", ", r.rulesBrokenBy(seq)));
      for (Event e : r.history(seq)) {
        out.printf("    +%9.3f s  %-8s %-18s job %s%s%n", e.atNanos() / 1e9, genLabel(e.gen(), result),
            e.kind(), e.jobId() == null ? "-" : e.jobId(), detail(e));
      }
    }
    if (offenders.size() > MAX_TIMELINES) {
      out.printf("(%d more offending jobs not shown)%n", offenders.size() - MAX_TIMELINES);
    }
    out.printf("%s: %s (work directory %s)%n", mode, result.ok() ? "PASS" : "FAIL", result.workDir());
    out.println("TORTURE " + json(result));
  }

  private static void row(PrintStream out, String label, Cycle c, GenCounts g) {
    out.printf("%5s %8d %9d %8d %7d %7d %7d %7d %7d %7d %7d %7d %8d %4d%n", label, c.loadMs(), c.startMs(),
        c.storedAtStart(), g.enqueuesAcked(), g.enqueuesCut(), g.deliveries(), g.redeliveries(), g.retries(),
        g.acksAcked(), g.acksCut(), g.failuresAcked(), g.failuresCut(), g.violations());
  }

  private static String genLabel(int gen, Result result) {
    return gen == result.drain().gen() ? "drain" : "cycle " + gen;
  }

  private static String detail(Event e) {
    return switch (e.kind()) {
      case DELIVERED, FAILURE_ACKED -> ", attempts " + e.detail();
      case ENQUEUE_REJECTED, ACK_REJECTED, FAILURE_REJECTED -> ", status " + e.detail();
      default -> "";
    };
  }

  private static String duration(long ms) {
    long s = ms / 1000;
    return s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : String.format("%.1f s", ms / 1000.0);
  }

  private static String json(Result result) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mode", result.mode());
    m.put("cycles", result.cycles().size());
    m.put("elapsed_s", result.elapsedMs() / 1000.0);
    m.put("ok", result.ok());
    m.put("must_be_zero", result.reconciliation().mustBeZero());
    m.put("figures", result.reconciliation().figures());
    m.put("clean_exit_status", result.cleanExitStatus());
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
