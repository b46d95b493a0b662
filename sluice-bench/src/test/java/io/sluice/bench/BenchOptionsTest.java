package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchOptionsTest {

  @Test
  void theClientWarmUpSendsTheThroughputJobsButAtMostASecondOfLatencyJobs() {
    BenchOptions d = BenchOptions.parse(new String[0]);
    assertThat(d.forWarmup().jobs()).isEqualTo(200_000);
    assertThat(d.forWarmup().latencyJobs()).isEqualTo(500);

    BenchOptions small = BenchOptions.parse(new String[] {"--warmup-jobs", "4000"});
    assertThat(small.forWarmup().jobs()).isEqualTo(4_000);
    assertThat(small.forWarmup().latencyJobs()).isEqualTo(100);
    assertThat(BenchOptions.parse(new String[] {"--warmup-jobs", "1"}).forWarmup().latencyJobs())
        .isEqualTo(1);
  }

  @Test
  void classicWorkloadsKeepTheirMeaning() {
    BenchOptions all = BenchOptions.parse(new String[0]);
    assertThat(all.workload()).isEqualTo("all");
    assertThat(all.runThroughput()).isTrue();
    assertThat(all.runLatency()).isTrue();
    assertThat(all.budgetWorkload()).isFalse();

    BenchOptions a = BenchOptions.parse(new String[] {"--workload", "a"});
    assertThat(a.runThroughput()).isTrue();
    assertThat(a.runLatency()).isFalse();
    assertThat(a.warmUpThroughput()).isTrue();

    BenchOptions b = BenchOptions.parse(new String[] {"--workload=b"});
    assertThat(b.runThroughput()).isFalse();
    assertThat(b.runLatency()).isTrue();
    assertThat(b.warmUpThroughput()).isFalse();
  }

  @Test
  void budgetWorkloadsRunNeitherClassicWorkloadButWarmUpWithA() {
    for (String w : BenchOptions.BUDGET_WORKLOADS) {
      BenchOptions o = BenchOptions.parse(new String[] {"--workload", w});
      assertThat(o.budgetWorkload()).isTrue();
      assertThat(o.runThroughput()).isFalse();
      assertThat(o.runLatency()).isFalse();
      assertThat(o.warmUpThroughput()).isTrue();
      assertThat(o.forServerWarmup().workload()).isEqualTo(w);
    }
  }

  @Test
  void budgetOptionsHaveDefaultsAndCanBeSet() {
    BenchOptions d = BenchOptions.parse(new String[0]);
    assertThat(d.parked()).isEqualTo(1_000_000);
    assertThat(d.budgets()).isEqualTo(8192);
    assertThat(d.jobsPerBudget()).isEqualTo(4);
    assertThat(d.windowSec()).isEqualTo(20);
    assertThat(d.pacingJobs()).isEqualTo(1000);

    BenchOptions o = BenchOptions.parse(new String[] {"--parked", "100_000", "--budgets=16", "--jobs-per-budget", "2",
        "--window-sec", "5", "--pacing-jobs", "200"});
    assertThat(o.parked()).isEqualTo(100_000);
    assertThat(o.budgets()).isEqualTo(16);
    assertThat(o.jobsPerBudget()).isEqualTo(2);
    assertThat(o.windowSec()).isEqualTo(5);
    assertThat(o.pacingJobs()).isEqualTo(200);
    assertThat(o.forWarmup().parked()).isEqualTo(100_000);
  }

  @Test
  void unknownWorkloadAndBadValuesAreRejected() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--workload", "budget"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("budget-pacing");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--parked", "0"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("--parked");
  }

  @Test
  void queryWorkloadRunsAloneWithItsOptions() {
    BenchOptions d = BenchOptions.parse(new String[] {"--workload", "query"});
    assertThat(d.queryWorkload()).isTrue();
    assertThat(d.soloWorkload()).isTrue();
    assertThat(d.budgetWorkload()).isFalse();
    assertThat(d.runThroughput()).isFalse();
    assertThat(d.runLatency()).isFalse();
    assertThat(d.warmUpThroughput()).isTrue();
    assertThat(d.stored()).isEqualTo(1_000_000);
    assertThat(d.rare()).isEqualTo(100);
    assertThat(d.queryRequests()).isEqualTo(50);
    assertThat(d.queryPages()).isEqualTo(10);
    assertThat(d.queryTimeSec()).isEqualTo(30);

    BenchOptions o = BenchOptions.parse(new String[] {"--workload=query", "--stored", "100_000", "--rare", "0",
        "--query-requests", "20", "--query-pages=5", "--query-time-sec", "10"});
    assertThat(o.stored()).isEqualTo(100_000);
    assertThat(o.rare()).isZero();
    assertThat(o.queryRequests()).isEqualTo(20);
    assertThat(o.queryPages()).isEqualTo(5);
    assertThat(o.queryTimeSec()).isEqualTo(10);
    assertThat(o.forServerWarmup().stored()).isEqualTo(100_000);
    assertThat(o.forWarmup().workload()).isEqualTo("query");
  }

  @Test
  void metricsWorkloadRunsAloneWithItsOptions() {
    BenchOptions d = BenchOptions.parse(new String[] {"--workload", "metrics"});
    assertThat(d.metricsWorkload()).isTrue();
    assertThat(d.soloWorkload()).isTrue();
    assertThat(d.runThroughput()).isFalse();
    assertThat(d.warmUpThroughput()).isTrue();
    assertThat(d.budgets()).isEqualTo(8192);
    assertThat(d.metricsQueues()).isEqualTo(1000);
    assertThat(d.scrapeEveryMs()).isEqualTo(1000);
    assertThat(d.adminUrl()).isNull();

    BenchOptions o = BenchOptions.parse(new String[] {"--workload=metrics", "--url", "http://127.0.0.1:1",
        "--admin-url=http://127.0.0.1:2", "--metrics-queues", "10", "--scrape-every-ms", "250"});
    assertThat(o.adminUrl()).isEqualTo("http://127.0.0.1:2");
    assertThat(o.metricsQueues()).isEqualTo(10);
    assertThat(o.scrapeEveryMs()).isEqualTo(250);
    assertThat(o.forServerWarmup().scrapeEveryMs()).isEqualTo(250);
    assertThat(o.forWarmup().adminUrl()).isEqualTo("http://127.0.0.1:2");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--scrape-every-ms", "0"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("--scrape-every-ms");
  }

  @Test
  void javaWorkerWorkloadRunsAloneAndWarmsUpWithA() {
    BenchOptions o = BenchOptions.parse(new String[] {"--workload", "java-worker", "--workers", "2"});
    assertThat(o.javaWorkerWorkload()).isTrue();
    assertThat(o.soloWorkload()).isTrue();
    assertThat(o.budgetWorkload()).isFalse();
    assertThat(o.runThroughput()).isFalse();
    assertThat(o.runLatency()).isFalse();
    assertThat(o.warmUpThroughput()).isTrue();
    assertThat(o.forWarmup().javaWorkerWorkload()).isTrue();
    assertThat(o.workers()).isEqualTo(2);
    assertThat(o.javaWorkerConcurrency()).as("the prefetch by default").isEqualTo(16);
    assertThat(BenchOptions.parse(new String[] {"--workload", "a"}).javaWorkerWorkload()).isFalse();

    BenchOptions set = BenchOptions.parse(new String[] {"--workload", "java-worker", "--worker-concurrency", "3",
        "--partitions", "7"});
    assertThat(set.javaWorkerConcurrency()).isEqualTo(3);
    assertThat(set.forWarmup().javaWorkerConcurrency()).isEqualTo(3);
    assertThat(set.forServerWarmup().javaWorkerConcurrency()).isEqualTo(3);
    assertThat(set.forServerWarmup().partitions()).isEqualTo(7);
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--worker-concurrency", "-1"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("--worker-concurrency");
  }

  @Test
  void queryWorkloadKeepsItsQueuesApartFromA() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--workload", "query", "--queue", "stored"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("--queue");
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--stored", "0"}))
        .isInstanceOf(BenchOptions.UsageException.class).hasMessageContaining("--stored");
  }
}
