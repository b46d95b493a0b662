package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The throttle counter each budget publishes (X7 {@code sluice_budget_throttled_total}): one
 * count each time the budget is found unable to pay for a head, on a manual clock. Published
 * state is read after a dispatch, which publishes what the turn's commit changed.
 */
class BudgetThrottleTest {
  private final EngineHarness h = EngineHarness.create();

  private long throttled(String key) {
    return h.engine().budgetStates().get(key).throttled();
  }

  @Test
  void aRateBudgetCountsTheHeadItHoldsBackOnceAndNotWhileItWaitsForTheDrip() {
    h.budget("rate", timeBased(1, Duration.ofSeconds(1)));
    h.budget("roomy", timeBased(100, Duration.ofSeconds(1)));
    h.openWorker("q", 10);
    h.enqueue(job("q").budget("rate"));
    h.enqueue(job("q").budget("roomy"));
    assertThat(h.dispatch()).hasSize(2);
    assertThat(throttled("rate")).isZero();

    JobSnapshot held = h.enqueue(job("q").budget("rate"));
    assertThat(h.dispatch()).isEmpty();
    assertThat(throttled("rate")).isEqualTo(1);
    h.advanceMs(999);
    assertThat(h.dispatch()).isEmpty();
    assertThat(throttled("rate")).isEqualTo(1);

    h.advanceMs(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(held.id());
    assertThat(throttled("rate")).isEqualTo(1);
    assertThat(h.engine().budgetStates().get("rate").dispatched()).isEqualTo(2);
    assertThat(throttled("roomy")).isZero();
  }

  @Test
  void onlyTheBudgetThatCannotPayCountsAJobBoundToSeveral() {
    h.budget("open", whileInFlight(5));
    h.budget("shut", whileInFlight(1));
    h.openWorker("q", 10);
    JobSnapshot holder = h.enqueue(job("q").budget("shut"));
    assertThat(h.dispatch()).hasSize(1);

    JobSnapshot both = h.enqueue(job("q").budget("open").budget("shut"));
    assertThat(h.dispatch()).isEmpty();
    assertThat(throttled("shut")).isEqualTo(1);
    assertThat(throttled("open")).isZero();

    h.ack(holder.id());
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(both.id());
    assertThat(throttled("shut")).isEqualTo(1);
    assertThat(throttled("open")).isZero();
  }

  @Test
  void everyHeadHeldBackCountsAgain() {
    h.budget("pool", whileInFlight(1));
    h.openWorker("q", 10);
    JobSnapshot first = h.enqueue(job("q").budget("pool"));
    JobSnapshot second = h.enqueue(job("q").budget("pool"));
    h.enqueue(job("q").budget("pool"));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(first.id());
    assertThat(throttled("pool")).isEqualTo(1);

    h.ack(first.id());
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(second.id());
    assertThat(throttled("pool")).isEqualTo(2);
  }
}
