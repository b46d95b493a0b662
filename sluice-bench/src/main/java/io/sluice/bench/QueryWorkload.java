package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * query: the read path with a large store (the "visibility" issue's targets).
 *
 * <ol>
 *   <li>Stores {@code --stored} jobs on queue 'stored' (types t0..t3 round-robin, payload
 *       {@code {"seq":i,"kind":"k<i%10>","pad":..}}) and {@code --rare} jobs on queue 'rare' spread
 *       evenly among them, by bulk enqueue; no worker takes from either queue, so all stay ready.
 *       Server memory is read once they are stored.
 *   <li>Times {@code --query-requests} sequential requests of each query kind over one keep-alive
 *       connection: {@code status=ready}, {@code queue=stored}, {@code type=t2}, {@code id=<known>},
 *       walks of {@code --query-pages} pages along {@code next} links, and {@code queue=rare}, the
 *       latter reported apart (a filter matching 100 of a million jobs is the case a server
 *       without a suitable index answers by scanning). Target: one page within 10 ms.
 *   <li>Runs workload (a) alone (after an unmeasured round of it, unless --server-warmup-runs
 *       already warmed the server), then again with a separate client sending
 *       {@code GET /jobs/count?queue=stored&filter=.kind == "k3"} (a jq scan over every stored
 *       job) back to back from just before the drain clock starts until the last ack. Target:
 *       drain throughput lowered by at most 20%.
 * </ol>
 *
 * <p>Every answer is checked (status, page shape, that listed jobs match the filter, that counts
 * are exact); a wrong answer fails the workload with the server's answer quoted.
 */
final class QueryWorkload {

  static final int LIMIT = 50;
  static final double PAGE_TARGET_MS = 10.0;
  static final double DRAIN_TARGET_PCT = 20.0;
  static final int TYPE = 2;
  static final int JQ_KIND = 3;
  static final String JQ_FILTER = ".kind == \"k" + JQ_KIND + "\"";
  static final String STORED = QueryBodies.STORED_QUEUE;
  static final String RARE = QueryBodies.RARE_QUEUE;
  private static final long PROGRESS_EVERY_MILLIS = 5_000;
  private static final int MAX_SCAN_COUNTS = 10_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BudgetEnv env;
  private final BenchOptions opt;
  private final int stored;
  private final int rare;
  /** Per request that may scan the whole store: a minute or two on top of the phase timeout. */
  private final long scanTimeoutSec;

  QueryWorkload(BudgetEnv env) {
    this.env = env;
    this.opt = env.opt();
    this.stored = opt.stored();
    this.rare = opt.rare();
    this.scanTimeoutSec = opt.phaseTimeoutSec() + ((long) stored + rare) / 10_000;
  }

  Map<String, Object> run() {
    Map<String, Object> m = new LinkedHashMap<>();
    try (ServerCalls calls = new ServerCalls(env.kit(), env.endpoint(), 4, scanTimeoutSec);
        TimedGets gets = new TimedGets(env.kit(), env.endpoint(), 0, scanTimeoutSec)) {
      ProcStatus.Memory memStart = env.memory();

      // 1. Store.
      QueryBodies bodies = new QueryBodies(stored, rare, opt.payloadBytes());
      long storeNanos = store(bodies);
      ProcStatus.Memory memStored = env.memory();
      double storeRate = bodies.total() / (storeNanos / 1e9);
      env.say("[query] stored %,d jobs on '%s' and %,d on '%s' in %.1f s (%,.0f jobs/s); server memory %s",
          stored, STORED, rare, RARE, storeNanos / 1e9, storeRate, memStored.describe());
      long t0 = System.nanoTime();
      expectCount(calls, "/jobs/count?queue=" + STORED, stored);
      double plainCountSec = (System.nanoTime() - t0) / 1e9;
      expectCount(calls, "/jobs/count?queue=" + RARE, rare);
      env.say("[query] GET /jobs/count?queue=%s -> %,d as expected, in %.2f s (no jq)", STORED, stored, plainCountSec);

      // 2. Page latency.
      env.say("[query] page latency, %d sequential requests per kind (or %d s, whichever first) on one keep-alive"
          + " connection, after one unmeasured request; limit=%d; target <= %.0f ms",
          opt.queryRequests(), opt.queryTimeSec(), LIMIT, PAGE_TARGET_MS);
      Map<String, Distribution> pages = new LinkedHashMap<>();
      pages.put("ready", measure("status=ready", pageOf(gets, "/jobs?status=ready&limit=" + LIMIT,
          Math.min(LIMIT, bodies.total()), LIMIT, bodies.total() > LIMIT ? Boolean.TRUE : null, "status", "ready")));
      pages.put("queue", measure("queue=" + STORED, pageOf(gets, "/jobs?queue=" + STORED + "&limit=" + LIMIT,
          Math.min(LIMIT, stored), Math.min(LIMIT, stored), stored > LIMIT, "queue", STORED)));
      long typeCount = QueryBodies.typeCount(stored, TYPE);
      pages.put("type", measure("type=t" + TYPE, pageOf(gets, "/jobs?type=t" + TYPE + "&limit=" + LIMIT,
          (int) Math.min(LIMIT, typeCount), LIMIT, typeCount > LIMIT ? Boolean.TRUE : null, "type", "t" + TYPE)));
      List<String> ids = knownIds(gets);
      int[] nextId = {0};
      pages.put("id", measure("id=<known id>", () -> {
        String id = ids.get(nextId[0]++ % ids.size());
        return check(gets.get("/jobs?id=" + id), 1, 1, false, "id", id).answer();
      }));
      pages.put("next", measure("next links", new NextWalk(gets)::next));
      Distribution rarePages = null;
      if (rare > 0) {
        rarePages = measure("queue=" + RARE + " (rare: " + String.format("%,d", rare) + " of "
            + String.format("%,d", bodies.total()) + ", spread out)", pageOf(gets, "/jobs?queue=" + RARE + "&limit=" + LIMIT,
            Math.min(LIMIT, rare), Math.min(LIMIT, rare), rare > LIMIT, "queue", RARE));
      }

      // 3. jq count alone, then (a) alone and (a) beside back-to-back jq counts.
      String jqUri = "/jobs/count?queue=" + STORED + "&filter=" + percentEncode(JQ_FILTER);
      long expectedJq = QueryBodies.kindCount(stored, JQ_KIND);
      long t1 = System.nanoTime();
      long jqAlone = CountScanner.parseCount(new ServerCalls.Call(HttpMethod.GET, jqUri, null),
          calls.call(new ServerCalls.Call(HttpMethod.GET, jqUri, null)));
      double jqAloneSec = (System.nanoTime() - t1) / 1e9;
      env.say("[query] GET %s (jq over every stored job, nothing else running) -> %,d in %.2f s%s", jqUri, jqAlone,
          jqAloneSec, jqAlone == expectedJq ? "" : String.format(" -- WRONG, expected %,d", expectedJq));

      if (opt.serverWarmupRuns() == 0) {
        // Without it the baseline would be the round that warms the drain path's JIT, and the
        // comparison would flatter the scan round (seen: +27% "beside the scan").
        ThroughputResult w = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
        env.say("[query] warm-up round of (a), not measured (--server-warmup-runs 0): enqueue %,.0f jobs/s,"
            + " drain %,.0f jobs/s, %s", w.enqueueRate(), w.drainRate(), w.ok() ? "OK" : "FAILED verification");
      }
      ThroughputResult alone = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
      env.sayLines(alone.describe("[a alone]"));
      ScanRound scan = drainBesideScan(jqUri);
      ThroughputResult beside = scan.result();
      env.sayLines(beside.describe("[a beside jq scan]"));
      ProcStatus.Memory memEnd = env.memory();

      List<CountScanner.Count> counts = scan.counts();
      long[] countNanos = new long[counts.size()];
      long wrongCounts = 0;
      List<Map<String, Object>> countList = new ArrayList<>();
      for (int i = 0; i < counts.size(); i++) {
        CountScanner.Count c = counts.get(i);
        countNanos[i] = c.nanos();
        wrongCounts += c.result() == expectedJq ? 0 : 1;
        Map<String, Object> one = new LinkedHashMap<>();
        one.put("s", ThroughputResult.round(c.nanos() / 1e9, 3));
        one.put("count", c.result());
        countList.add(one);
      }
      double busyPct = busyPct(counts, scan.goNanos(), scan.drainedNanos());
      StringBuilder each = new StringBuilder();
      for (int i = 0; i < Math.min(counts.size(), 10); i++) {
        each.append(i == 0 ? "" : ", ").append(String.format("%.2f s -> %,d", counts.get(i).nanos() / 1e9,
            counts.get(i).result()));
      }
      if (counts.size() > 10) {
        each.append(", ...");
      }
      env.say("[query] jq counts beside the drain: %d (%s); expected %,d each%s; a count was running for %.0f%% of the"
          + " drain", counts.size(), each, expectedJq, wrongCounts == 0 ? "" : String.format(" -- %d WRONG", wrongCounts),
          busyPct);
      double drainRatio = beside.drainRate() / alone.drainRate();
      boolean drainMet = drainRatio >= 1 - DRAIN_TARGET_PCT / 100;
      env.say("[query] drain   %,.0f jobs/s beside the jq scan vs %,.0f alone = %.1f%% (target >= %.0f%%: %s)",
          beside.drainRate(), alone.drainRate(), drainRatio * 100, 100 - DRAIN_TARGET_PCT, BudgetEnv.verdict(drainMet));
      env.say("[query] enqueue %,.0f vs %,.0f jobs/s (no scan during either enqueue: how much the two rounds differ"
          + " by themselves)", beside.enqueueRate(), alone.enqueueRate());
      env.say("[query] server memory: start %s, after storing %s, at the end %s", memStart.describe(),
          memStored.describe(), memEnd.describe());
      if (rarePages != null) {
        env.say("[query] note: queue=%s is reported apart from the target; p50 %.3f ms, p99 %.3f ms (%s)", RARE,
            Distribution.ms(rarePages.p50()), Distribution.ms(rarePages.p99()),
            Distribution.ms(rarePages.p50()) <= PAGE_TARGET_MS ? "within 10 ms" : "beyond 10 ms");
      }

      boolean countsOk = jqAlone == expectedJq && wrongCounts == 0 && !counts.isEmpty();
      m.put("ok", alone.ok() && beside.ok() && countsOk);
      m.put("stored", stored);
      m.put("rare", rare);
      m.put("store_s", ThroughputResult.round(storeNanos / 1e9, 2));
      m.put("store_jobs_per_s", Math.round(storeRate));
      m.put("rss_start_mib", memStart.rssMiB());
      m.put("rss_stored_mib", memStored.rssMiB());
      m.put("rss_end_mib", memEnd.rssMiB());
      m.put("rss_peak_mib", memEnd.peakRssMiB());
      m.put("count_plain_s", ThroughputResult.round(plainCountSec, 3));
      for (Map.Entry<String, Distribution> e : pages.entrySet()) {
        e.getValue().putMs(m, "page_" + e.getKey());
      }
      if (rarePages != null) {
        rarePages.putMs(m, "page_rare");
      }
      m.put("jq_count_alone_s", ThroughputResult.round(jqAloneSec, 3));
      m.put("jq_count_expected", expectedJq);
      m.put("jq_count_alone_result", jqAlone);
      m.put("jq_counts_beside", counts.size());
      m.put("jq_counts_wrong", wrongCounts);
      if (countNanos.length > 0) {
        m.put("jq_count_beside_median_s", ThroughputResult.round(Distribution.median(countNanos) / 1e9, 3));
        m.put("jq_count_beside_max_s", ThroughputResult.round(Distribution.of(countNanos).max() / 1e9, 3));
      }
      m.put("jq_scan_busy_pct", ThroughputResult.round(busyPct, 1));
      m.put("alone_drain_jobs_per_s", Math.round(alone.drainRate()));
      m.put("scan_drain_jobs_per_s", Math.round(beside.drainRate()));
      m.put("drain_ratio_pct", ThroughputResult.round(drainRatio * 100, 2));
      m.put("alone_enqueue_jobs_per_s", Math.round(alone.enqueueRate()));
      m.put("scan_enqueue_jobs_per_s", Math.round(beside.enqueueRate()));
      m.put("jq_counts", countList);
      m.put("alone", alone.toMap());
      m.put("beside_scan", beside.toMap());
      return m;
    } finally {
      try (ServerCalls calls = env.calls()) {
        env.cleanUp(calls, BudgetEnv.deleteQueue(STORED), BudgetEnv.deleteQueue(RARE));
      }
    }
  }

  /** Median figures as one SUMMARY line. */
  static String summaryLine(Map<String, Object> m) {
    StringBuilder sb = new StringBuilder("page ms p50/p99:");
    for (String kind : List.of("ready", "queue", "type", "id", "next")) {
      sb.append(' ').append(kind).append(' ').append(m.get("page_" + kind + "_p50_ms")).append('/')
          .append(m.get("page_" + kind + "_p99_ms"));
    }
    if (m.containsKey("page_rare_p50_ms")) {
      sb.append("; rare (apart) ").append(m.get("page_rare_p50_ms")).append('/').append(m.get("page_rare_p99_ms"));
    }
    sb.append(String.format("; drain %,d jobs/s beside jq scan vs %,d alone = %s%%; jq count %s s beside (%s s alone)"
            + " -> %s; server RSS after storing %s MiB",
        ((Number) m.get("scan_drain_jobs_per_s")).longValue(), ((Number) m.get("alone_drain_jobs_per_s")).longValue(),
        m.get("drain_ratio_pct"), m.getOrDefault("jq_count_beside_median_s", "n/a"), m.get("jq_count_alone_s"),
        m.get("jq_count_alone_result"), m.getOrDefault("rss_stored_mib", "n/a")));
    return sb.toString();
  }

  /** Enqueues every stored and rare job over --lanes connections, printing progress. @return nanoseconds */
  private long store(QueryBodies bodies) {
    int total = bodies.total();
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies.lazyBulk(opt.batch()), total, opt.batch());
    HttpClientAgent connector = env.kit().connector();
    // Bounded like every phase, but allowing for a slow server: at least 1,000 jobs/s.
    long timeoutSec = opt.phaseTimeoutSec() + total / 1_000;
    long start = System.nanoTime();
    try {
      enqueuer.connect(env.contexts(opt.lanes()), connector, env.endpoint(), BudgetEnv.CONNECT_TIMEOUT_SEC);
      env.say("[query] storing %,d jobs in bulk requests of %,d (progress every %d s, give up after %d s)",
          total, opt.batch(), PROGRESS_EVERY_MILLIS / 1000, timeoutSec);
      return enqueuer.run(timeoutSec, PROGRESS_EVERY_MILLIS, done -> env.say(
          "[query]   %,d of %,d stored (%.0f%%, %,.0f jobs/s so far)", done, total, 100.0 * done / total,
          done / ((System.nanoTime() - start) / 1e9)));
    } finally {
      enqueuer.close();
      Await.quietly(connector.close(), 5_000);
    }
  }

  private void expectCount(ServerCalls calls, String uri, long expected) {
    ServerCalls.Call c = new ServerCalls.Call(HttpMethod.GET, uri, null);
    long n = CountScanner.parseCount(c, calls.call(c));
    if (n != expected) {
      throw new BenchFailure(c + " answered " + n + ", expected " + expected
          + (env.sharedServer() ? " (jobs left on the shared server by something else? delete them first)" : ""));
    }
  }

  /**
   * Times one query kind: one unmeasured request (connection, first touch), then up to
   * --query-requests timed ones, stopping early after --query-time-sec.
   */
  private Distribution measure(String label, Supplier<TimedGets.Answer> request) {
    request.get();
    long[] samples = new long[opt.queryRequests()];
    int n = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(opt.queryTimeSec());
    while (n < samples.length && (n == 0 || System.nanoTime() < deadline)) {
      samples[n++] = request.get().nanos();
    }
    Distribution d = Distribution.of(Arrays.copyOf(samples, n));
    double p50 = Distribution.ms(d.p50());
    double p99 = Distribution.ms(d.p99());
    env.say("[query] page %-22s ms: %s (%d requests%s) target <= %.0f ms: p50 %s, p99 %s", label, d.describeMs(), n,
        n < samples.length ? ", cut short by --query-time-sec" : "", PAGE_TARGET_MS,
        BudgetEnv.verdict(p50 <= PAGE_TARGET_MS), BudgetEnv.verdict(p99 <= PAGE_TARGET_MS));
    return d;
  }

  private Supplier<TimedGets.Answer> pageOf(TimedGets gets, String uri, int minJobs, int maxJobs, Boolean hasNext,
      String field, String value) {
    return () -> check(gets.get(uri), minJobs, maxJobs, hasNext, field, value).answer();
  }

  /** A checked page: the answer (with its timing) and the parsed body. */
  record Page(TimedGets.Answer answer, JsonNode jobs, String next) {
    String firstId() {
      return jobs.isEmpty() ? null : jobs.get(0).path("id").asText();
    }

    String lastId() {
      return jobs.isEmpty() ? null : jobs.get(jobs.size() - 1).path("id").asText();
    }
  }

  /**
   * Checks a {@code GET /jobs} answer: 200, the page shape of API.md §8.9, the number of jobs,
   * whether there is a next link (null: either), and that every job's {@code field} is
   * {@code value}. Any mismatch fails with the server's answer.
   */
  static Page check(TimedGets.Answer a, int minJobs, int maxJobs, Boolean hasNext, String field, String value) {
    a.expectOk();
    JsonNode root;
    try {
      root = JSON.readTree(a.body().getBytes());
    } catch (IOException e) {
      throw wrong(a, "unparsable JSON");
    }
    JsonNode jobs = root.path("jobs");
    JsonNode pages = root.path("pages");
    if (!jobs.isArray() || !pages.isObject() || !pages.has("self") || !pages.has("next") || !pages.has("prev")) {
      throw wrong(a, "not a page ({\"jobs\":[..],\"pages\":{self,next,prev}})");
    }
    if (jobs.size() < minJobs || jobs.size() > maxJobs) {
      throw wrong(a, jobs.size() + " jobs listed, expected " + (minJobs == maxJobs ? minJobs : minJobs + ".." + maxJobs));
    }
    JsonNode next = pages.get("next");
    if (hasNext != null && hasNext == next.isNull()) {
      throw wrong(a, hasNext ? "no next link" : "a next link although nothing follows");
    }
    for (JsonNode job : jobs) {
      if (!value.equals(job.path(field).asText())) {
        throw wrong(a, "a job with " + field + " '" + job.path(field).asText() + "', expected '" + value + "'");
      }
    }
    return new Page(a, jobs, next.isNull() ? null : next.asText());
  }

  private static BenchFailure wrong(TimedGets.Answer a, String what) {
    return new BenchFailure("GET " + a.uri() + " answered 200 with " + what + ": " + Snippet.of(a.body()));
  }

  /** Ids of stored jobs from both ends of the id order, for the id=<known> kind. */
  private List<String> knownIds(TimedGets gets) {
    List<String> ids = new ArrayList<>();
    int n = Math.min(LIMIT, stored);
    for (String order : List.of("asc", "desc")) {
      Page p = check(gets.get("/jobs?queue=" + STORED + "&order=" + order + "&limit=" + LIMIT), n, n, null, "queue", STORED);
      for (JsonNode job : p.jobs()) {
        ids.add(job.path("id").asText());
      }
    }
    return ids;
  }

  /**
   * Walks queue=stored along next links: each call returns one timed next page; after
   * --query-pages pages (or at the end of the queue) the walk starts again from the first page,
   * which is fetched unmeasured.
   */
  private final class NextWalk {
    private final TimedGets gets;
    private String next;
    private String lastId;
    private int page;

    NextWalk(TimedGets gets) {
      this.gets = gets;
    }

    TimedGets.Answer next() {
      if (next == null || page == opt.queryPages()) {
        Page first = check(gets.get("/jobs?queue=" + STORED + "&limit=" + LIMIT), Math.min(LIMIT, stored),
            Math.min(LIMIT, stored), stored > LIMIT, "queue", STORED);
        if (first.next() == null) {
          throw new BenchFailure("--stored " + stored + " fills one page only: nothing to walk");
        }
        next = first.next();
        lastId = first.lastId();
        page = 0;
      }
      page++;
      long seen = (long) LIMIT * page; // jobs on the pages before this one
      int expected = (int) Math.min(LIMIT, stored - seen);
      Page p = check(gets.get(next), expected, expected, stored > seen + LIMIT, "queue", STORED);
      if (p.firstId().compareTo(lastId) <= 0) {
        throw wrong(p.answer(), "page starting at id " + p.firstId() + ", not after the previous page's last "
            + lastId);
      }
      next = p.next();
      lastId = p.lastId();
      return p.answer();
    }
  }

  /** Round (a) beside the count scanner, with the instants the drain clock started and stopped. */
  private record ScanRound(ThroughputResult result, List<CountScanner.Count> counts, long goNanos, long drainedNanos) {}

  private ScanRound drainBesideScan(String jqUri) {
    try (ServerCalls scanCalls = new ServerCalls(env.kit(), env.endpoint(), 1, scanTimeoutSec)) {
      CountScanner scanner = new CountScanner(scanCalls, jqUri, MAX_SCAN_COUNTS,
          opt.phaseTimeoutSec() + scanTimeoutSec);
      long[] window = new long[2];
      ThroughputResult r;
      try {
        r = new ThroughputWorkload(opt, env.kit(), env.endpoint()).withDrainHook(new ThroughputWorkload.DrainHook() {
          @Override
          public void beforeGo() {
            scanner.start();
            window[0] = System.nanoTime();
          }

          @Override
          public void drained() {
            window[1] = System.nanoTime();
            scanner.stop();
          }
        }).run(BudgetEnv.nonce());
      } catch (RuntimeException e) {
        try {
          scanner.finish(TimeUnit.SECONDS.toMillis(scanTimeoutSec + 5));
        } catch (RuntimeException alsoFailed) {
          e.addSuppressed(alsoFailed);
        }
        throw e;
      }
      // The count running when the drain ended finishes first: its time and result are reported too.
      scanner.finish(TimeUnit.SECONDS.toMillis(scanTimeoutSec + 5));
      return new ScanRound(r, scanner.counts(), window[0], window[1]);
    }
  }

  /** Share of [from, to] during which a count was in flight, in percent. */
  static double busyPct(List<CountScanner.Count> counts, long from, long to) {
    if (to <= from) {
      return 0;
    }
    long busy = 0;
    for (CountScanner.Count c : counts) {
      busy += Math.max(0, Math.min(c.endNanos(), to) - Math.max(c.startNanos(), from));
    }
    return Math.min(100.0, 100.0 * busy / (to - from));
  }

  /** Percent-encodes everything but RFC 3986 unreserved characters. */
  static String percentEncode(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
          || c == '_' || c == '~') {
        sb.append(c);
      } else {
        sb.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xf, 16)))
            .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
      }
    }
    return sb.toString();
  }
}
