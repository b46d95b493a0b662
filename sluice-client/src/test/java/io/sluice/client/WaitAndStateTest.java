package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.BudgetState;
import io.sluice.client.model.BudgetWithState;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobWait;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client's view of Sluice's live budget state (X1) and wait reasons (X2). */
class WaitAndStateTest extends SharedServerTest {
  @Test
  void aBudgetsStateAndWhyItsSecondJobWaits() {
    String queue = TestServer.uniqueName("wait");
    String budget = queue + "-hourly";
    client.budgets().put(budget, BudgetPolicy.rate(1, Duration.ofHours(1)));
    EnqueueRequest bound = EnqueueRequest.builder(queue, "call", Map.of("n", 1))
        .budgets(BudgetBinding.of(budget)).build();
    Job first = client.jobs().enqueue(bound);
    Job second = client.jobs().enqueue(bound);

    BudgetWithState read = client.budgets().state(budget);
    assertThat(read.key()).isEqualTo(budget);
    BudgetState state = read.state();
    assertThat(state.tokens()).isEqualTo(1);
    assertThat(state.capacity()).isEqualTo(1);
    assertThat(state.waiting()).isEqualTo(new BudgetState.JobsAndCost(2, 2));
    assertThat(state.inFlight()).isEqualTo(new BudgetState.JobsAndCost(0, 0));
    assertThat(state.nextTokenAt()).isNull();
    assertThat(state.dispatched()).isZero();

    JobWait head = client.jobs().waitReason(first.id());
    assertThat(head.waitingFor()).isEqualTo("worker");
    assertThat(head.budgets()).singleElement().satisfies(part -> {
      assertThat(part.blocking()).isFalse();
      assertThat(part.reason()).isNull();
    });
    JobWait behind = client.jobs().waitReason(second.id());
    assertThat(behind.waitingFor()).isEqualTo("budgets");
    assertThat(behind.budgets()).singleElement().satisfies(part -> {
      assertThat(part.key()).isEqualTo(budget);
      assertThat(part.reason()).isEqualTo("queue");
      assertThat(part.ahead()).isEqualTo(new BudgetState.JobsAndCost(1, 1));
      assertThat(part.availableAt()).isEqualTo(behind.asOf().plus(Duration.ofHours(1)));
    });
    assertThat(behind.estimatedDispatchAt()).isEqualTo(behind.asOf().plus(Duration.ofHours(1)));
  }

  @Test
  void pausingAndResumingABudget() {
    String budget = TestServer.uniqueName("paused");
    client.budgets().put(budget, BudgetPolicy.concurrency(1));

    BudgetWithState paused = client.budgets().pause(budget, Duration.ofMinutes(5));
    // The pause starts in the engine's turn, the state is read just after it.
    Instant fiveMinutesOn = paused.state().asOf().plus(Duration.ofMinutes(5));
    assertThat(paused.state().pausedUntil())
        .isBetween(fiveMinutesOn.minusSeconds(5), fiveMinutesOn);
    BudgetWithState longer =
        client.budgets().pauseUntil(budget, paused.state().pausedUntil().plusSeconds(60));
    assertThat(longer.state().pausedUntil())
        .isEqualTo(paused.state().pausedUntil().plusSeconds(60));
    assertThat(client.budgets().resume(budget).state().pausedUntil()).isNull();
  }

  @Test
  void anUnknownJobOrBudgetIsNotFound() {
    assertThatThrownBy(() -> client.jobs().waitReason("03hc5xyf0parppnub42r2fsye"))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.budgets().state("no-such-budget"))
        .isInstanceOf(NotFoundException.class);
  }
}
