package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * metrics: {@code GET /metrics} on the admin listener (issue 14, X7) with {@code --budgets}
 * budgets and {@code --metrics-queues} queues present, and what scraping costs a drain.
 *
 * <ol>
 *   <li>Enqueues one job per budget, bound to it and creating it (time_based, one token an hour),
 *       spread round-robin over the queues (and one unbound job in each queue beyond the
 *       budgets). No worker takes those queues: every budget and queue stays in every scrape.
 *   <li>Checks that a scrape holds a series per budget and three per queue; scrapes 100 times
 *       unmeasured (a server that has run for long has compiled its scrape path), then times 20
 *       scrapes back to back with nothing else running.
 *   <li>Runs workload (a) four times, each once the server is quiet again, alone (A) and with a
 *       scrape every {@code --scrape-every-ms} from just before the drain clock starts until the
 *       last ack (S), in the order A S S A on odd runs and S A A S on even ones, so drift within
 *       a run (compactions, page cache) cancels out; each side's drain rate is its total jobs
 *       over its total drain time. Targets: every scrape during a drain within 50 ms; the
 *       scraped drain within 5% of the drain alone.
 * </ol>
 */
final class MetricsWorkload {

  static final double SCRAPE_TARGET_MS = 50.0;
  static final double DRAIN_TARGET_PCT = 5.0;
  private static final int IDLE_SCRAPES = 20;
  /** The longest wait for the server to settle (compactions of the last round) before a round. */
  private static final long QUIET_WAIT_MILLIS = 60_000;
  /** Scrapes before any is timed: a server that has run for long has compiled its scrape path. */
  private static final int WARM_UP_SCRAPES = 100;
  private static final String BUDGET_POLICY =
      "{\"allocation\":1,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":3600000}}";

  private final BudgetEnv env;
  private final BenchOptions opt;
  private final Endpoint admin;

  MetricsWorkload(BudgetEnv env) {
    this.env = env;
    this.opt = env.opt();
    if (env.server() != null) {
      this.admin = env.server().adminEndpoint();
    } else if (opt.adminUrl() != null) {
      this.admin = Endpoint.parse(opt.adminUrl());
    } else {
      throw new BenchFailure("the metrics workload scrapes the admin listener: with --url, give --admin-url too");
    }
  }

  private String queue(int i) {
    return opt.queue() + "-m" + i;
  }

  static String budget(int i) {
    return "m" + i;
  }

  Map<String, Object> run(int runNumber) {
    boolean scrapedFirst = runNumber % 2 == 0;
    MetricsScraper scraper = new MetricsScraper(admin, opt.phaseTimeoutSec());
    try {
      long setupNanos = populate();
      env.say("[metrics] %,d budgets and %,d queues made in %.1f s; server memory %s", opt.budgets(),
          opt.metricsQueues(), setupNanos / 1e9, env.memory().describe());
      byte[] first = scraper.scrape().body();
      checkSeries(first);
      ScrapeLoop.backToBack(scraper, WARM_UP_SCRAPES, 0);
      env.awaitQuietServer("[metrics] before the idle scrapes:", QUIET_WAIT_MILLIS);
      List<MetricsScraper.Scrape> idle = ScrapeLoop.backToBack(scraper, 0, IDLE_SCRAPES);
      Distribution idleMs = Distribution.of(idle.stream().mapToLong(MetricsScraper.Scrape::nanos).toArray());
      env.say("[metrics] scrape with nothing else running, ms: %s (%d scrapes of %,d bytes)", idleMs.describeMs(),
          idle.size(), first.length);

      if (opt.serverWarmupRuns() == 0) {
        ThroughputResult w = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
        env.say("[metrics] warm-up round of (a), not measured (--server-warmup-runs 0): drain %,.0f jobs/s, %s",
            w.drainRate(), w.ok() ? "OK" : "FAILED verification");
      }
      List<ThroughputResult> alone = new ArrayList<>();
      List<ThroughputResult> scraped = new ArrayList<>();
      List<MetricsScraper.Scrape> during = new ArrayList<>();
      for (boolean withScrapes : BudgetOverheadWorkload.passOrder(scrapedFirst)) {
        env.awaitQuietServer(withScrapes ? "[metrics] before a scraped round:" : "[metrics] before a round alone:",
            QUIET_WAIT_MILLIS);
        if (withScrapes) {
          ScrapedRound round = drainScraped(scraper);
          env.sayLines(round.result().describe("[a scraped]"));
          scraped.add(round.result());
          during.addAll(round.scrapes());
        } else {
          ThroughputResult r = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
          env.sayLines(r.describe("[a alone]"));
          alone.add(r);
        }
      }
      BudgetOverheadWorkload.Totals a = BudgetOverheadWorkload.Totals.of(alone);
      BudgetOverheadWorkload.Totals s = BudgetOverheadWorkload.Totals.of(scraped);
      Distribution duringMs = Distribution.of(during.stream().mapToLong(MetricsScraper.Scrape::nanos).toArray());
      double drainRatio = s.drainRate() / a.drainRate();
      boolean scrapeMet = !during.isEmpty() && Distribution.ms(duringMs.max()) <= SCRAPE_TARGET_MS;
      boolean drainMet = drainRatio >= 1 - DRAIN_TARGET_PCT / 100;
      env.say("[metrics] scrape during the drains, ms: %s (%d scrapes) target every one <= %.0f ms: %s",
          duringMs.describeMs(), during.size(), SCRAPE_TARGET_MS, BudgetEnv.verdict(scrapeMet));
      env.say("[metrics] drain %,.0f jobs/s scraped vs %,.0f alone = %.1f%% (target >= %.0f%%: %s) [order: %s]",
          s.drainRate(), a.drainRate(), drainRatio * 100, 100 - DRAIN_TARGET_PCT, BudgetEnv.verdict(drainMet),
          scrapedFirst ? "scraped alone alone scraped" : "alone scraped scraped alone");

      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", a.ok() && s.ok() && !during.isEmpty());
      m.put("budgets", opt.budgets());
      m.put("queues", opt.metricsQueues());
      m.put("scrape_bytes", first.length);
      idleMs.putMs(m, "idle_scrape");
      duringMs.putMs(m, "drain_scrape");
      m.put("alone_drain_jobs_per_s", Math.round(a.drainRate()));
      m.put("scraped_drain_jobs_per_s", Math.round(s.drainRate()));
      m.put("drain_ratio_pct", ThroughputResult.round(drainRatio * 100, 2));
      m.put("order", scrapedFirst ? "scraped-first" : "alone-first");
      m.put("alone", alone.stream().map(ThroughputResult::toMap).toList());
      m.put("scraped", scraped.stream().map(ThroughputResult::toMap).toList());
      return m;
    } finally {
      cleanUp();
    }
  }

  /** Median figures as one SUMMARY line. */
  static String summaryLine(Map<String, Object> m) {
    return String.format("%s budgets, %s queues, %s bytes: scrape ms idle p50 %s; during the drain p50 %s max %s;"
            + " drain %,d jobs/s scraped vs %,d alone = %s%%",
        m.get("budgets"), m.get("queues"), m.get("scrape_bytes"), m.get("idle_scrape_p50_ms"),
        m.get("drain_scrape_p50_ms"), m.get("drain_scrape_max_ms"),
        ((Number) m.get("scraped_drain_jobs_per_s")).longValue(), ((Number) m.get("alone_drain_jobs_per_s")).longValue(),
        m.get("drain_ratio_pct"));
  }

  /** Creates the budgets and fills the queues by bulk enqueue. @return nanoseconds */
  private long populate() {
    int jobs = Math.max(opt.budgets(), opt.metricsQueues());
    List<Buffer> bodies = LazyBatches.of(jobs, opt.batch(), this::body);
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, jobs, opt.batch());
    HttpClientAgent connector = env.kit().connector();
    long start = System.nanoTime();
    try {
      enqueuer.connect(env.contexts(1), connector, env.endpoint(), BudgetEnv.CONNECT_TIMEOUT_SEC);
      enqueuer.run(opt.phaseTimeoutSec());
      return System.nanoTime() - start;
    } finally {
      enqueuer.close();
      Await.quietly(connector.close(), 5_000);
    }
  }

  /** Jobs [first, end): job i on queue i mod Q, bound to (and creating) budget i while i < K. */
  private Buffer body(int first, int end) {
    StringBuilder sb = new StringBuilder((end - first) * 160);
    sb.append("{\"jobs\":[");
    for (int i = first; i < end; i++) {
      sb.append(i == first ? "" : ",").append("{\"type\":\"m\",\"queue\":\"")
          .append(queue(i % opt.metricsQueues())).append("\",\"payload\":{}");
      if (i < opt.budgets()) {
        sb.append(",\"budgets\":[{\"key\":\"").append(budget(i)).append("\",\"create_with\":")
            .append(BUDGET_POLICY).append("}]");
      }
      sb.append('}');
    }
    return Buffer.buffer(sb.append("]}").toString());
  }

  /** Fails unless the scrape shows every budget and three statuses of every queue. */
  private void checkSeries(byte[] body) {
    int budgetSeries = 0;
    int queueSeries = 0;
    String queuePrefix = "sluice_jobs{queue=\"" + opt.queue() + "-m";
    for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith("sluice_budget_tokens{budget=\"m")) {
        budgetSeries++;
      } else if (line.startsWith(queuePrefix)) {
        queueSeries++;
      }
    }
    if (budgetSeries != opt.budgets() || queueSeries != 3 * opt.metricsQueues()) {
      throw new BenchFailure("GET /metrics shows " + budgetSeries + " of " + opt.budgets() + " budgets' tokens and "
          + queueSeries + " of " + 3 * opt.metricsQueues() + " per-queue job series");
    }
  }

  private record ScrapedRound(ThroughputResult result, List<MetricsScraper.Scrape> scrapes) {}

  private ScrapedRound drainScraped(MetricsScraper scraper) {
    ScrapeLoop loop = new ScrapeLoop(scraper, opt.scrapeEveryMs(), opt.phaseTimeoutSec());
    ThroughputResult r;
    try {
      r = new ThroughputWorkload(opt, env.kit(), env.endpoint()).withDrainHook(new ThroughputWorkload.DrainHook() {
        @Override
        public void beforeGo() {
          loop.start();
        }

        @Override
        public void drained() {
          loop.finish(TimeUnit.SECONDS.toMillis(opt.phaseTimeoutSec()));
        }
      }).run(BudgetEnv.nonce());
    } catch (RuntimeException e) {
      try {
        loop.finish(TimeUnit.SECONDS.toMillis(opt.phaseTimeoutSec()));
      } catch (RuntimeException alsoFailed) {
        e.addSuppressed(alsoFailed);
      }
      throw e;
    }
    return new ScrapedRound(r, loop.scrapes());
  }

  /** On a shared server: the workload's queues and budgets go, jobs first (they hold the budgets). */
  private void cleanUp() {
    if (!env.sharedServer()) {
      return;
    }
    try (ServerCalls calls = env.calls()) {
      List<ServerCalls.Call> steps = new ArrayList<>();
      for (int i = 0; i < opt.metricsQueues(); i++) {
        steps.add(BudgetEnv.deleteQueue(queue(i)));
      }
      for (int i = 0; i < opt.budgets(); i++) {
        steps.add(new ServerCalls.Call(HttpMethod.DELETE, "/budgets/" + budget(i), null));
      }
      env.cleanUp(calls, steps.toArray(ServerCalls.Call[]::new));
    }
  }
}
