package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Reporting throttling (X6) from the Java client, against a real server. */
class ThrottledFailureClientTest extends SharedServerTest {
  /** A concurrency budget of its own and one job of a queue of its own bound to it. */
  private static Job boundJob(String queue, String budget) {
    client.budgets().put(budget, BudgetPolicy.concurrency(1));
    return client.jobs().enqueue(EnqueueRequest.builder(queue, "call", Map.of())
        .budgets(BudgetBinding.of(budget)).build());
  }

  /** What the handler saw when the job ran again after being throttled. */
  record Rerun(Instant startedAt, int attempts, List<ErrorRecord> errors) {}

  @Test
  void aHandlerThrowingThrottledExceptionPausesTheBudgetAndRunsTheJobAgainUncounted()
      throws Exception {
    String queue = TestServer.uniqueName("throttled-worker");
    String budget = queue + "-api";
    boundJob(queue, budget);
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<Instant> throttledAt = new CompletableFuture<>();
    CompletableFuture<Rerun> rerun = new CompletableFuture<>();
    try (Worker worker = Worker.builder(client).queues(queue).concurrency(1).build()) {
      worker.handle("call", Map.class, (payload, job) -> {
        if (runs.incrementAndGet() == 1) {
          throttledAt.complete(Instant.now());
          throw new ThrottledException(budget, Duration.ofMillis(300), "429 Too Many Requests",
              new IOException("partner answered 429, Retry-After: 0.3"));
        }
        rerun.complete(new Rerun(Instant.now(), job.attempts(),
            client.jobs().streamErrors(job.id()).toList()));
      });
      worker.start();

      Rerun second = rerun.get(10, TimeUnit.SECONDS);
      assertThat(Duration.between(throttledAt.get(), second.startedAt()))
          .as("nothing bound to the budget starts before its pause ends")
          .isGreaterThanOrEqualTo(Duration.ofMillis(300));
      assertThat(second.attempts()).isZero();
      assertThat(second.errors()).singleElement().satisfies(error -> {
        assertThat(error.throttled()).isTrue();
        assertThat(error.attempt()).isEqualTo(1);
        assertThat(error.message()).isEqualTo("429 Too Many Requests");
        assertThat(error.errorType()).isEqualTo("java.io.IOException");
      });
    }
    assertThat(runs).hasValue(2);
    assertThat(client.jobs().count(JobQuery.all().queues(queue))).as("completed").isZero();
  }

  @Test
  void jobsApiReportsAThrottledFailureAndTheServerPausesTheBudget() {
    String queue = TestServer.uniqueName("throttled-api");
    String budget = queue + "-api";
    Job enqueued = boundJob(queue, budget);
    try (TakeStream stream = client.jobs().take(List.of(queue), 1, null)) {
      assertThat(stream.next().id()).isEqualTo(enqueued.id());

      Job answered = client.jobs().fail(enqueued.id(),
          FailureReport.of("429").throttling(budget, Duration.ofMinutes(10)));

      assertThat(answered.status()).isEqualTo(JobStatus.READY);
      assertThat(answered.attempts()).isZero();
      Instant pausedUntil = client.budgets().state(budget).state().pausedUntil();
      assertThat(pausedUntil).isAfter(Instant.now().plus(Duration.ofMinutes(9)));
      ErrorRecord record = client.jobs().error(enqueued.id(), 1);
      assertThat(record.throttled()).isTrue();
    }
  }

  @Test
  void aThrottleNamingABudgetTheJobIsNotBoundToIsAValidationError() {
    String queue = TestServer.uniqueName("throttled-unbound");
    Job enqueued = boundJob(queue, queue + "-api");
    try (TakeStream stream = client.jobs().take(List.of(queue), 1, null)) {
      stream.next();

      assertThatThrownBy(() -> client.jobs().fail(enqueued.id(),
          FailureReport.of("429").throttling("elsewhere", Duration.ofSeconds(1))))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("job is not bound to budget elsewhere");
    }
  }
}
