package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.BindingChange;
import io.sluice.client.model.Budget;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPatch;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.BudgetStrategy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.StrategyType;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Budget CRUD (BUDGETS.md §8.1–8.6) and the binding routes (§8.7). */
class BudgetsApiTest extends SharedServerTest {
  static BudgetsApi budgets;
  static BindingsApi bindings;

  @BeforeAll
  static void apis() {
    budgets = client.budgets();
    bindings = client.bindings();
  }

  private static String job(String queue) {
    return client.jobs().enqueue(EnqueueRequest.builder(queue, "work", null).build()).id();
  }

  @Test
  void createGetListPatchPutDelete() {
    String key = TestServer.uniqueName("image/service");
    BudgetPolicy hourly = new BudgetPolicy(10000,
        BudgetStrategy.timeBased(Duration.ofHours(1), 500));

    Budget created = budgets.create(key, hourly);
    assertThat(created.key()).isEqualTo(key);
    assertThat(created.strategy()).isEqualTo(hourly.strategy());
    assertThat(created.updatedAt()).isEqualTo(created.createdAt());
    assertThatThrownBy(() -> budgets.create(key, BudgetPolicy.concurrency(1)))
        .isInstanceOf(ConflictException.class)
        .extracting(e -> ((SluiceException) e).serverMessage())
        .isEqualTo("budget '" + key + "' already exists");

    assertThat(budgets.get(key)).isEqualTo(created);
    assertThat(budgets.list()).extracting(Budget::key).contains(key);

    Budget patched = budgets.patch(key, BudgetPatch.create().allocation(20).clearBurst());
    assertThat(patched.allocation()).isEqualTo(20);
    assertThat(patched.strategy().burst()).isNull();
    assertThat(patched.strategy().duration()).isEqualTo(Duration.ofHours(1));
    Budget switched = budgets.patch(key, BudgetPatch.create().type(StrategyType.TIME_BASED)
        .duration(Duration.ofMinutes(1)).burst(40));
    assertThat(switched.strategy())
        .isEqualTo(BudgetStrategy.timeBased(Duration.ofMinutes(1), 40));

    Budget replaced = budgets.put(key, BudgetPolicy.concurrency(3));
    assertThat(replaced.strategy()).isEqualTo(BudgetStrategy.whileInFlight());
    assertThat(replaced.createdAt()).isEqualTo(created.createdAt());

    budgets.delete(key);
    assertThatThrownBy(() -> budgets.get(key)).isInstanceOf(NotFoundException.class);
  }

  @Test
  void aDurablePolicyIsSentAndReadBackAndCanBePatchedOff() {
    String key = TestServer.uniqueName("daily");
    BudgetPolicy daily = BudgetPolicy.rate(1000, Duration.ofDays(1)).keptAcrossRestarts();

    assertThat(budgets.create(key, daily).durable()).isTrue();
    assertThat(budgets.state(key).durable()).isTrue();
    assertThat(budgets.patch(key, BudgetPatch.create().durable(false)).durable()).isFalse();
    assertThat(budgets.patch(key, BudgetPatch.create().durable(true)).durable()).isTrue();
    assertThat(budgets.put(key, BudgetPolicy.rate(1000, Duration.ofDays(1))).durable()).isFalse();
  }

  @Test
  void invalidPolicyIsAValidationError() {
    assertThatThrownBy(() -> budgets.put(TestServer.uniqueName("bad"),
        BudgetPolicy.concurrency(0)))
        .isInstanceOf(ValidationException.class)
        .satisfies(e -> assertThat(((SluiceException) e).status()).isEqualTo(422));
  }

  @Test
  void singleJobBindingRoutes() {
    String queue = TestServer.uniqueName("bind");
    String a = TestServer.uniqueName("a");
    String b = TestServer.uniqueName("b");
    budgets.put(a, BudgetPolicy.concurrency(10));
    String id = job(queue);

    Job added = bindings.add(id, BudgetBinding.of(a, 2));
    assertThat(added.budgets()).containsExactly(BudgetBinding.of(a, 2));
    assertThatThrownBy(() -> bindings.add(id, BudgetBinding.of(a)))
        .isInstanceOf(ConflictException.class);

    Job withCreated = bindings.put(id,
        BudgetBinding.of(b, 3).withCreate(BudgetPolicy.concurrency(5)));
    assertThat(withCreated.budgets())
        .containsExactly(BudgetBinding.of(a, 2), BudgetBinding.of(b, 3));
    assertThat(bindings.changeCost(id, a, 4).budgets())
        .containsExactly(BudgetBinding.of(a, 4), BudgetBinding.of(b, 3));
    assertThat(bindings.remove(id, b).budgets()).containsExactly(BudgetBinding.of(a, 4));
    assertThatThrownBy(() -> bindings.remove(id, b)).isInstanceOf(NotFoundException.class);

    assertThat(bindings.set(id, List.of(BudgetBinding.of(b), BudgetBinding.of(a))).budgets())
        .containsExactly(BudgetBinding.of(b, 1), BudgetBinding.of(a, 1));
    assertThat(bindings.clear(id).budgets()).isNull();
  }

  @Test
  void bulkBindingRoutes() {
    String queue = TestServer.uniqueName("bulk-bind");
    String key = TestServer.uniqueName("shared");
    List<String> ids = List.of(job(queue), job(queue), job(queue));
    JobQuery inQueue = JobQuery.all().queues(queue);

    BindingChange added = bindings.addAll(inQueue,
        BudgetBinding.of(key).withCreate(BudgetPolicy.concurrency(10)));
    assertThat(added).isEqualTo(new BindingChange(3, List.of()));
    assertThat(client.jobs().count(JobQuery.all().budgetKeys(key))).isEqualTo(3);

    assertThat(bindings.changeCostAll(inQueue, key, 5).changed()).isEqualTo(3);
    assertThat(client.jobs().get(ids.get(0)).budgets()).containsExactly(BudgetBinding.of(key, 5));
    assertThat(bindings.putAll(JobQuery.all().ids(ids.get(0)), BudgetBinding.of(key, 6))
        .changed()).isEqualTo(1);
    assertThat(bindings.removeAll(JobQuery.all().ids(ids.get(1)), key).changed()).isEqualTo(1);
    assertThatThrownBy(() -> budgets.delete(key)).isInstanceOf(ConflictException.class);
    assertThat(bindings.clearAll(inQueue).changed()).isEqualTo(2);
    budgets.delete(key);
  }

  @Test
  void inFlightJobsAreReportedAsBlocked() {
    String queue = TestServer.uniqueName("blocked");
    String key = TestServer.uniqueName("blocked-budget");
    budgets.put(key, BudgetPolicy.concurrency(10));
    String id = job(queue);
    try (TakeStream stream = client.jobs().take(List.of(queue), 1, null)) {
      assertThat(stream.next().status()).isEqualTo(JobStatus.IN_FLIGHT);

      BindingChange change = bindings.addAll(JobQuery.all().queues(queue), BudgetBinding.of(key));

      assertThat(change).isEqualTo(new BindingChange(0, List.of(id)));
      assertThatThrownBy(() -> bindings.add(id, BudgetBinding.of(key)))
          .isInstanceOf(ValidationException.class);
    }
  }
}
