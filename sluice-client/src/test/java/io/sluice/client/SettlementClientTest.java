package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Retention;
import io.sluice.client.model.Settlement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Acknowledging with the real cost (X5) from the client, against a real server: single, bulk and
 * failure acknowledgements, a refused settlement, and a worker whose handler reports its costs.
 * The budgets drip one token every six minutes, so the tests see only what they settle.
 */
class SettlementClientTest extends SharedServerTest {
  private static String budget(String queue) {
    String key = queue + "-llm";
    client.budgets().put(key, BudgetPolicy.rate(10, Duration.ofHours(1)));
    return key;
  }

  private static EnqueueRequest bound(String queue, String budget, long cost) {
    return EnqueueRequest.builder(queue, "complete", Map.of("prompt", "hi"))
        .budgets(BudgetBinding.of(budget, cost))
        .retention(new Retention(Duration.ofMinutes(5), Duration.ofMinutes(5)))
        .build();
  }

  private static long tokens(String budget) {
    return client.budgets().state(budget).state().tokens();
  }

  private static Long settledCost(String id) {
    return client.jobs().get(id).budgets().get(0).settledCost();
  }

  @Test
  void ackFailAndAckAllSettleTheRealCost() {
    String queue = TestServer.uniqueName("settle");
    String budget = budget(queue);
    String acked = client.jobs().enqueue(bound(queue, budget, 2)).id();
    String failed = client.jobs().enqueue(bound(queue, budget, 2)).id();
    String bulk = client.jobs().enqueue(bound(queue, budget, 2)).id();
    try (TakeStream stream = client.jobs().take(List.of(queue), 3, null)) {
      assertThat(List.of(stream.next().id(), stream.next().id(), stream.next().id()))
          .containsExactly(acked, failed, bulk);

      assertThatThrownBy(() -> client.jobs().ack(acked, Settlement.of("elsewhere", 1)))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("job is not bound to budget elsewhere");
      assertThat(client.jobs().get(acked).status()).isEqualTo(JobStatus.IN_FLIGHT);

      client.jobs().ack(acked, Settlement.of(budget, 5));
      assertThat(settledCost(acked)).isEqualTo(5);
      assertThat(tokens(budget)).isEqualTo(1);

      Job afterFailure = client.jobs().fail(failed, FailureReport.of("cut short"),
          Settlement.of(budget, 0));
      assertThat(afterFailure.budgets().get(0).settledCost()).isZero();
      assertThat(tokens(budget)).isEqualTo(3);

      assertThat(client.jobs().ackAll(List.of(bulk),
          Map.of(bulk, List.of(Settlement.of(budget, 6))))).isEmpty();
      assertThat(settledCost(bulk)).isEqualTo(6);
      assertThat(client.budgets().state(budget).state().debt()).isEqualTo(1);
    }
  }

  @Test
  void aWorkerHandlerReportsWhatEachJobReallyCost() throws Exception {
    String queue = TestServer.uniqueName("worker");
    String budget = budget(queue);
    String id = client.jobs().enqueue(bound(queue, budget, 1)).id();

    try (Worker worker = Worker.builder(client).queues(queue)
        .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(200))
        .shutdownTimeout(Duration.ofSeconds(5)).build()) {
      worker.handleWithCosts("complete", Map.class,
          (payload, job) -> List.of(Settlement.of(budget, 4)));
      worker.start();
      Job done = Await.until(() -> client.jobs().get(id),
          job -> job.status() == JobStatus.COMPLETED, "job " + id + " to complete");
      assertThat(done.budgets().get(0).settledCost()).isEqualTo(4);
    }
    assertThat(tokens(budget)).isEqualTo(6);
  }
}
