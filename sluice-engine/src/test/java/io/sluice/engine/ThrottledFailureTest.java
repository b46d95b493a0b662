package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failure;
import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.Throttle;
import io.sluice.engine.store.Mutation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A worker reporting throttling on failure (X6), on a manual clock: the named budget is paused
 * as by {@code POST /budgets/{key}/pause}, the job is ready again at once in its old place, the
 * attempt is not counted, and an error record marks the failure throttled.
 */
class ThrottledFailureTest {
  private final EngineHarness h = EngineHarness.create();

  private static FailureReport throttled(String budget, long retryAfterMs) {
    return new FailureReport("429 Too Many Requests", "HttpError", null, null, false, 0.0,
        new Throttle(budget, null, retryAfterMs));
  }

  private void step(long ms) {
    h.advanceMs(ms);
    h.runDue();
  }

  @Test
  void theJobIsReadyAtOnceAheadOfLaterJobsButNothingBoundGoesUntilTheExactEndOfThePause() {
    h.budget("api", whileInFlight(1));
    h.openWorker("q", 10);
    JobSnapshot first = h.enqueue(job("q").budget("api"));
    JobSnapshot second = h.enqueue(job("q").budget("api"));
    JobSnapshot unbound = h.enqueue(job("q"));
    assertThat(h.dispatch()).extracting(JobSnapshot::id)
        .containsExactly(first.id(), unbound.id());

    JobSnapshot answered = h.fail(first.id(), throttled("api", 30_000));
    long pauseEnd = h.nowMs() + 30_000;

    assertThat(answered.status()).isEqualTo(JobStatus.READY);
    assertThat(answered.readyAtMs()).isEqualTo(first.readyAtMs());
    assertThat(h.get(first.id()).status()).isEqualTo(JobStatus.READY);
    assertThat(h.budgets().get("api").pausedUntilMs()).isEqualTo(pauseEnd);
    JobSnapshot later = h.enqueue(job("q"));
    assertThat(h.dispatch()).as("jobs of no budget still go").extracting(JobSnapshot::id)
        .containsExactly(later.id());
    step(29_999);
    assertThat(h.dispatch()).isEmpty();
    step(1);
    // The slot the throttled job held came back when it left flight; it goes first, and the
    // second waits for that slot.
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(first.id());
    assertThat(h.parkedCount("api")).isEqualTo(1);
    h.ack(first.id());
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(second.id());
  }

  @Test
  void theAttemptIsNotCountedAndTheErrorRecordIsMarkedThrottled() {
    h.budget("api", whileInFlight(1));
    h.openWorker("q", 10);
    JobSnapshot job = h.enqueue(job("q").budget("api").retryLimit(0));
    h.dispatch();
    long dequeuedAtMs = h.nowMs();
    h.advanceMs(40);

    JobSnapshot answered = h.fail(job.id(), throttled("api", 1_000));

    assertThat(answered.attempts()).isZero();
    assertThat(answered.errorRecords()).isEqualTo(1);
    assertThat(answered.failedAtMs()).isEqualTo(h.nowMs());
    assertThat(h.lastTurn()).contains(
        new Mutation.PutError(job.id(), new ErrorRecord(1, 1, "429 Too Many Requests",
            "HttpError", null, dequeuedAtMs, h.nowMs(), true)),
        new Mutation.PutJob(answered));
    assertThat(h.lastTurn()).filteredOn(Mutation.PutBudget.class::isInstance)
        .extracting(put -> ((Mutation.PutBudget) put).budget().pausedUntilMs())
        .as("the pause is stored as a pause through /budgets/{key}/pause is")
        .containsExactly(h.nowMs() + 1_000);

    step(1_000);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    JobSnapshot dead = h.fail(job.id(), failure("real failure"));
    assertThat(dead.status()).as("retry_limit 0: the first counted failure kills")
        .isEqualTo(JobStatus.DEAD);
    assertThat(dead.attempts()).isEqualTo(1);
    assertThat(h.lastTurn()).contains(new Mutation.PutError(job.id(), new ErrorRecord(2, 1,
        "real failure", null, null, h.nowMs(), h.nowMs(), false)));
  }

  @Test
  void theTimeBasedTokensItPaidAreNotRefunded() {
    h.budget("rate", timeBased(2, Duration.ofHours(1)));
    h.openWorker("q", 10);
    JobSnapshot job = h.enqueue(job("q").budget("rate"));
    h.dispatch();
    assertThat(h.tokens("rate")).isEqualTo(1);

    h.fail(job.id(), throttled("rate", 500));
    assertThat(h.tokens("rate")).isEqualTo(1);
    step(500);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    assertThat(h.tokens("rate")).isZero();
  }

  @Test
  void aShorterThrottleNeverShortensTheBudgetsPause() {
    h.budget("api", whileInFlight(2));
    h.openWorker("q", 10);
    List<JobSnapshot> jobs = h.enqueue(job("q").budget("api"), job("q").budget("api"));
    h.dispatch();

    h.fail(jobs.get(0).id(), throttled("api", 10_000));
    step(2_000);
    h.fail(jobs.get(1).id(), throttled("api", 1_000));

    step(7_999);
    assertThat(h.dispatch()).isEmpty();
    step(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id)
        .containsExactly(jobs.get(0).id(), jobs.get(1).id());
  }

  @Test
  void deletingAThrottledJobDeletesEveryErrorRecordItHas() {
    h.budget("api", whileInFlight(1));
    h.openWorker("q", 10);
    JobSnapshot job = h.enqueue(job("q").budget("api")
        .retention(new RetentionPolicy(0L, null)));
    h.dispatch();
    h.fail(job.id(), throttled("api", 0));
    h.dispatch();
    h.fail(job.id(), throttled("api", 0));
    h.dispatch();

    h.ack(job.id());
    assertThat(h.lastTurn()).contains(new Mutation.DeleteJob(job.id(), 2));
  }

  @Test
  void aThrottleNamingABudgetTheJobIsNotBoundToIsRefusedAndChangesNothing() {
    h.budget("api", whileInFlight(1));
    h.budget("other", whileInFlight(1));
    JobSnapshot job = takeBound("api");

    assertRefused(job.id(), throttled("other", 1_000), "job is not bound to budget other");
    assertRefused(job.id(), throttled("missing", 1_000), "job is not bound to budget missing");
    assertThat(h.budgets().get("other").pausedUntilMs()).isNull();
  }

  @Test
  void aThrottleNamingAPartitionOrCombinedWithKillOrRetryAtIsRefusedAndChangesNothing() {
    h.budget("api", whileInFlight(1));
    JobSnapshot job = takeBound("api");

    assertRefused(job.id(), new FailureReport("m", null, null, null, false, 0.0,
        new Throttle("api", "acct_42", 1_000)), "budget api is not partitioned");
    assertRefused(job.id(), new FailureReport("m", null, null, null, true, 0.0,
        new Throttle("api", null, 1_000)), "throttle cannot be combined with kill");
    assertRefused(job.id(), new FailureReport("m", null, null, h.nowMs() + 5, false, 0.0,
        new Throttle("api", null, 1_000)), "throttle cannot be combined with retry_at");
    assertThat(h.budgets().get("api").pausedUntilMs()).isNull();
  }

  @Test
  void aJobThatIsNotInFlightCannotReportThrottling() {
    h.budget("api", whileInFlight(1));
    JobSnapshot waiting = h.enqueue(job("q").budget("api"));

    assertThatThrownBy(() -> h.fail(waiting.id(), throttled("api", 1_000)))
        .isInstanceOf(SluiceException.NotFound.class);
  }

  private JobSnapshot takeBound(String budget) {
    h.openWorker("q", 10);
    JobSnapshot job = h.enqueue(job("q").budget(budget));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    return job;
  }

  private void assertRefused(JobId id, FailureReport report, String message) {
    assertThatThrownBy(() -> h.fail(id, report))
        .isInstanceOf(SluiceException.Unprocessable.class)
        .hasMessageStartingWith(message);
    h.runDue();
    assertThat(h.lastTurn()).as("the refused report wrote nothing").isEmpty();
    assertThat(h.get(id).status()).isEqualTo(JobStatus.IN_FLIGHT);
  }
}
