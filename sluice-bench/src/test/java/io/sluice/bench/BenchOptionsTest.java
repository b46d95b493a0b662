package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BenchOptionsTest {

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
}
