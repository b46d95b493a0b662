package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} on the admin listener (X7), parsed with a strict exposition parser and
 * checked value by value against a known workload, run once before the tests: queue A takes six
 * jobs (three acked, one killed, one failed to retry in an hour, one left in flight), queue B
 * holds three ready and two scheduled jobs and no worker, queue C drains through a budget of one
 * token an hour (one dispatched, two waiting) and a roomy concurrency budget (one dispatched).
 * The tests only scrape, so every figure stays what the workload made it.
 */
class MetricsHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  private static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0";
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(ServerFixture.TIMEOUT).build();
  private static final String A = uniqueName("metrics-a");
  private static final String B = uniqueName("metrics-b");
  private static final String C = uniqueName("metrics-c");
  private static final String RATE = uniqueName("metrics-rate");
  private static final String ROOMY = uniqueName("metrics-roomy");
  private static final List<WorkerStream> streams = new ArrayList<>();
  private static final List<String> jobIds = new ArrayList<>();

  @BeforeAll
  static void runWorkload() {
    WorkerStream workerA = take("queue=" + A + "&prefetch=0");
    for (int i = 0; i < 6; i++) {
      jobIds.add(server.enqueueId(A));
    }
    List<String> taken = workerA.nextJobs(6).stream().map(ServerFixture::id).toList();
    server.ack(taken.get(0));
    server.ack(taken.get(1));
    server.ack(taken.get(2));
    server.fail(taken.get(3), JSON.createObjectNode().put("message", "fatal").put("kill", true));
    server.fail(taken.get(4), JSON.createObjectNode().put("message", "later")
        .put("retry_at", System.currentTimeMillis() + 3_600_000));

    for (int i = 0; i < 3; i++) {
      jobIds.add(server.enqueueId(B));
    }
    for (int i = 0; i < 2; i++) {
      jobIds.add(id(server.enqueue(job(B, "work")
          .put("ready_at", System.currentTimeMillis() + 3_600_000))));
    }

    BudgetClient budgets = new BudgetClient(server);
    budgets.define(RATE, timeBased(1, 3_600_000));
    budgets.define(ROOMY, whileInFlight(10));
    WorkerStream workerC = take("queue=" + C + "&prefetch=0");
    for (int i = 0; i < 3; i++) {
      jobIds.add(id(server.enqueue(boundJob(C, RATE))));
    }
    jobIds.add(id(server.enqueue(boundJob(C, ROOMY))));
    workerC.nextJobs(2);

    server.getJob(taken.get(5));
    server.getJob(jobIds.get(6));
    assertThat(server.get("/jobs/03hc5xyf0parppnub42r2fsye").status()).isEqualTo(404);
    assertThat(server.get("/no/such/path").status()).isEqualTo(404);
    assertThat(server.get("/jobs/bulk").status()).isEqualTo(405);

    // Dispatch publishes its counts right after handing jobs over; wait for the last of them.
    ServerFixture.poll(MetricsHttpTest::scrape,
        m -> Double.valueOf(1).equals(m.value("sluice_budget_in_flight_jobs", "budget", ROOMY)),
        "the roomy budget's dispatch to be published");
  }

  private static WorkerStream take(String query) {
    WorkerStream stream = server.take(query);
    streams.add(stream);
    return stream;
  }

  @AfterAll
  static void closeStreams() {
    streams.forEach(WorkerStream::close);
  }

  private static PrometheusText scrape() {
    HttpResponse<String> response = get(server, "/metrics", null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type"))
        .hasValue("text/plain; version=0.0.4; charset=utf-8");
    return PrometheusText.parsePrometheus(response.body());
  }

  static HttpResponse<String> get(ServerFixture target, String path, String accept) {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + target.adminPort() + path)).timeout(ServerFixture.TIMEOUT);
    if (accept != null) {
      request.header("Accept", accept);
    }
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void jobsPerQueueAndStatusAreTheEnginesCounts() {
    PrometheusText metrics = scrape();

    assertThat(metrics.type("sluice_jobs")).isEqualTo("gauge");
    assertThat(metrics.value("sluice_jobs", "queue", A, "status", "scheduled")).isEqualTo(1);
    assertThat(metrics.value("sluice_jobs", "queue", A, "status", "ready")).isEqualTo(0);
    assertThat(metrics.value("sluice_jobs", "queue", A, "status", "in_flight")).isEqualTo(1);
    assertThat(metrics.value("sluice_jobs", "queue", B, "status", "scheduled")).isEqualTo(2);
    assertThat(metrics.value("sluice_jobs", "queue", B, "status", "ready")).isEqualTo(3);
    assertThat(metrics.value("sluice_jobs", "queue", B, "status", "in_flight")).isEqualTo(0);
    assertThat(metrics.value("sluice_jobs", "queue", C, "status", "ready")).isEqualTo(2);
    assertThat(metrics.value("sluice_jobs", "queue", C, "status", "in_flight")).isEqualTo(2);
    assertThat(metrics.series("sluice_jobs")).extracting(s -> s.labels().get("status"))
        .containsOnly("scheduled", "ready", "in_flight");
  }

  @Test
  void jobCountersCountEveryEnqueueAckFailureAndDeathPerQueue() {
    PrometheusText metrics = scrape();

    assertThat(metrics.value("sluice_jobs_enqueued_total", "queue", A)).isEqualTo(6);
    assertThat(metrics.value("sluice_jobs_enqueued_total", "queue", B)).isEqualTo(5);
    assertThat(metrics.value("sluice_jobs_enqueued_total", "queue", C)).isEqualTo(4);
    assertThat(metrics.value("sluice_jobs_completed_total", "queue", A)).isEqualTo(3);
    assertThat(metrics.value("sluice_jobs_failed_total", "queue", A)).isEqualTo(2);
    assertThat(metrics.value("sluice_jobs_dead_total", "queue", A)).isEqualTo(1);
    assertThat(metrics.value("sluice_jobs_completed_total", "queue", B))
        .as("a queue nothing finished in has no series yet").isNull();
  }

  @Test
  void waitAndRunHistogramsHoldOneObservationPerDispatchAndPerReport() {
    PrometheusText metrics = scrape();

    assertThat(metrics.type("sluice_job_wait_seconds")).isEqualTo("histogram");
    assertThat(metrics.value("sluice_job_wait_seconds_count", "queue", A)).isEqualTo(6);
    assertThat(metrics.value("sluice_job_wait_seconds_count", "queue", C)).isEqualTo(2);
    assertThat(metrics.value("sluice_job_wait_seconds_count", "queue", B)).isNull();
    assertThat(metrics.value("sluice_job_run_seconds_count", "queue", A)).isEqualTo(5);
    assertThat(metrics.value("sluice_job_run_seconds_sum", "queue", A))
        .isBetween(0.0, 5 * ServerFixture.TIMEOUT.toSeconds() * 1.0);
    assertThat(metrics.value("sluice_job_run_seconds_bucket", "queue", A, "le", "3600.0"))
        .isEqualTo(5);
  }

  @Test
  void budgetsShowTokensWaitingInFlightDispatchesAndThrottles() {
    PrometheusText metrics = scrape();

    assertThat(metrics.value("sluice_budget_tokens", "budget", RATE)).isEqualTo(0);
    assertThat(metrics.value("sluice_budget_waiting_jobs", "budget", RATE)).isEqualTo(2);
    assertThat(metrics.value("sluice_budget_in_flight_jobs", "budget", RATE)).isEqualTo(1);
    assertThat(metrics.value("sluice_budget_dispatched_total", "budget", RATE)).isEqualTo(1);
    assertThat(metrics.value("sluice_budget_throttled_total", "budget", RATE)).isEqualTo(1);
    assertThat(metrics.value("sluice_budget_partitions", "budget", RATE)).isEqualTo(0);

    assertThat(metrics.value("sluice_budget_tokens", "budget", ROOMY)).isEqualTo(9);
    assertThat(metrics.value("sluice_budget_waiting_jobs", "budget", ROOMY)).isEqualTo(0);
    assertThat(metrics.value("sluice_budget_in_flight_jobs", "budget", ROOMY)).isEqualTo(1);
    assertThat(metrics.value("sluice_budget_dispatched_total", "budget", ROOMY)).isEqualTo(1);
    assertThat(metrics.value("sluice_budget_throttled_total", "budget", ROOMY)).isEqualTo(0);
    assertThat(metrics.type("sluice_budget_dispatched_total")).isEqualTo("counter");
  }

  @Test
  void requestsAreCountedByRoutePatternNeverByPath() {
    PrometheusText metrics = scrape();

    assertThat(metrics.value("sluice_http_requests_total", "route", "/jobs", "code", "201"))
        .isEqualTo(15);
    assertThat(metrics.value("sluice_http_requests_total", "route", "/jobs/{id}", "code", "200"))
        .isEqualTo(2);
    assertThat(metrics.value("sluice_http_requests_total", "route", "/jobs/{id}", "code", "404"))
        .isEqualTo(1);
    assertThat(metrics.value("sluice_http_requests_total",
        "route", "/jobs/{id}/success", "code", "204")).isEqualTo(3);
    assertThat(metrics.value("sluice_http_requests_total",
        "route", "/jobs/{id}/failure", "code", "200")).isEqualTo(2);
    assertThat(metrics.value("sluice_http_requests_total", "route", "/jobs/take", "code", "200"))
        .isEqualTo(2);
    assertThat(metrics.value("sluice_http_requests_total",
        "route", "/budgets/{key}", "code", "200")).isEqualTo(2);
    assertThat(metrics.value("sluice_http_requests_total", "route", "/jobs/bulk", "code", "405"))
        .isEqualTo(1);
    assertThat(metrics.value("sluice_http_requests_total", "route", "unmatched", "code", "404"))
        .isEqualTo(1);
    Set<String> routes = metrics.series("sluice_http_requests_total").stream()
        .map(s -> s.labels().get("route")).collect(Collectors.toSet());
    assertThat(routes).allMatch(route -> route.equals("unmatched")
        || route.matches("(/([a-z_]+|\\{[a-z]+\\}))+"), "a route pattern");
    assertThat(routes).noneMatch(route -> jobIds.stream().anyMatch(route::contains));
  }

  @Test
  void workersStorageCommitsAndTheJvmAreThere() {
    PrometheusText metrics = scrape();

    assertThat(metrics.value("sluice_workers_connected")).isEqualTo(2);
    assertThat(metrics.value("sluice_storage_bytes")).isPositive();
    assertThat(metrics.value("sluice_commit_seconds_count", "mode", "buffered"))
        .as("at least one commit per enqueue request").isGreaterThanOrEqualTo(15);
    assertThat(metrics.value("sluice_commit_seconds_sum", "mode", "buffered")).isPositive();
    assertThat(metrics.value("sluice_commit_seconds_count", "mode", "fsync")).isEqualTo(0);
    assertThat(metrics.value("jvm_memory_used_bytes", "area", "heap")).isPositive();
    assertThat(metrics.value("jvm_threads_current")).isPositive();
  }

  @Test
  void openMetricsWhenTheAcceptHeaderAsksForIt() {
    HttpResponse<String> response = get(server, "/metrics", OPENMETRICS);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElseThrow())
        .startsWith("application/openmetrics-text; version=1.0.0");
    PrometheusText metrics = PrometheusText.parseOpenMetrics(response.body());
    assertThat(metrics.type("sluice_jobs_enqueued")).isEqualTo("counter");
    assertThat(metrics.value("sluice_jobs_enqueued_total", "queue", A)).isEqualTo(6);
    assertThat(metrics.value("sluice_budget_throttled_total", "budget", RATE)).isEqualTo(1);
    assertThat(metrics.value("sluice_jobs", "queue", B, "status", "ready")).isEqualTo(3);
  }

  @Test
  void metricsAreServedOnTheAdminListenerOnly() {
    assertThat(server.get("/metrics").status()).isEqualTo(404);
    assertThat(server.post("/metrics").status()).isEqualTo(404);
  }

  @Test
  void theWorkersGaugeFollowsStreamsOpeningAndClosing(@TempDir Path tmp) {
    try (ServerFixture own = ServerFixture.start(tmp)) {
      assertThat(workers(own)).isEqualTo(0);
      WorkerStream first = own.take("queue=q");
      WorkerStream second = own.take("queue=q");
      assertThat(workers(own)).isEqualTo(2);

      first.close();
      ServerFixture.poll(() -> workers(own), n -> n == 1, "one stream left");
      second.close();
      ServerFixture.poll(() -> workers(own), n -> n == 0, "no stream left");
    }
  }

  @Test
  void everyBudgetChangeShowsInTheNextScrapeInEitherFormat(@TempDir Path tmp) {
    try (ServerFixture own = ServerFixture.start(tmp)) {
      BudgetClient budgets = new BudgetClient(own);
      budgets.define("first", whileInFlight(3));
      ServerFixture.poll(() -> budgetTokens(own, null, "first"), v -> v != null && v == 3,
          "the new budget in a text scrape");
      assertThat(budgetTokens(own, OPENMETRICS, "first")).isEqualTo(3);

      budgets.define("second", whileInFlight(5));
      ServerFixture.poll(() -> budgetTokens(own, OPENMETRICS, "second"),
          v -> v != null && v == 5, "the second budget in an OpenMetrics scrape");
      assertThat(budgetTokens(own, null, "second")).isEqualTo(5);

      budgets.delete("first");
      ServerFixture.poll(() -> budgetTokens(own, null, "first"), v -> v == null,
          "the deleted budget gone from a text scrape");
      assertThat(budgetTokens(own, OPENMETRICS, "first")).isNull();
      assertThat(budgetTokens(own, OPENMETRICS, "second")).isEqualTo(5);
    }
  }

  /** A budget's tokens in one scrape; an OpenMetrics one must end with its only {@code # EOF}. */
  private static Double budgetTokens(ServerFixture target, String accept, String budget) {
    String body = get(target, "/metrics", accept).body();
    if (accept == null) {
      return PrometheusText.parsePrometheus(body).value("sluice_budget_tokens", "budget", budget);
    }
    assertThat(body.split("# EOF", -1)).as("one # EOF").hasSize(2);
    return PrometheusText.parseOpenMetrics(body).value("sluice_budget_tokens", "budget", budget);
  }

  private static double workers(ServerFixture target) {
    HttpResponse<String> response = get(target, "/metrics", null);
    return PrometheusText.parsePrometheus(response.body()).value("sluice_workers_connected");
  }
}
