package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.Budget;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPartition;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.BudgetState;
import io.sluice.client.model.BudgetWithState;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.JobWait;
import io.sluice.client.model.Page;
import io.sluice.client.model.Retention;
import io.sluice.client.model.Settlement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Partitioned budgets (X3) from the Java client, against a real server: the policy flag, bindings
 * naming a partition, the partitions and their state, pausing one partition, why a job waits,
 * filtering by partition, changing a binding, and settling and throttling a partition.
 */
class PartitionedBudgetClientTest extends SharedServerTest {
  private static EnqueueRequest on(String queue, BudgetBinding... bindings) {
    return EnqueueRequest.builder(queue, "call", Map.of("n", 1))
        .budgets(bindings)
        .retention(new Retention(Duration.ofMinutes(5), Duration.ofMinutes(5)))
        .build();
  }

  private static String enqueue(String queue, String key, String partition) {
    return client.jobs().enqueue(on(queue, BudgetBinding.onPartition(key, partition))).id();
  }

  @Test
  void aPartitionedPolicyIsCreatedReadAndFixed() {
    String key = TestServer.uniqueName("per-account");
    String plain = TestServer.uniqueName("global");

    Budget created = client.budgets().create(key,
        BudgetPolicy.rate(100, Duration.ofSeconds(1)).perPartition().keptAcrossRestarts());
    assertThat(created.partitioned()).isTrue();
    assertThat(created.durable()).isTrue();
    assertThat(client.budgets().get(key).partitioned()).isTrue();
    Budget plainBudget = client.budgets().put(plain, BudgetPolicy.rate(1000, Duration.ofSeconds(1)));
    assertThat(plainBudget.partitioned()).isFalse();
    assertThat(client.budgets().list()).filteredOn(b -> b.key().equals(key))
        .singleElement().satisfies(b -> assertThat(b.partitioned()).isTrue());

    assertThatThrownBy(() -> client.budgets().put(key,
        BudgetPolicy.rate(100, Duration.ofSeconds(1))))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("budget partitioned cannot be changed");
    assertThatThrownBy(() -> client.jobs().enqueue(on("q", BudgetBinding.of(key))))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("budget " + key + " is partitioned: binding requires a partition");
    assertThatThrownBy(() -> client.jobs().enqueue(on("q", BudgetBinding.onPartition(plain, "a"))))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("budget " + plain + " is not partitioned");

    String createdWith = TestServer.uniqueName("created-with");
    Job job = client.jobs().enqueue(on(TestServer.uniqueName("cw"),
        BudgetBinding.onPartition(createdWith, "acct_1")
            .withCreate(BudgetPolicy.concurrency(2).perPartition())));
    assertThat(job.budgets().get(0).partition()).isEqualTo("acct_1");
    assertThat(client.budgets().get(createdWith).partitioned()).isTrue();
  }

  @Test
  void bindingsEchoTheirPartitionAndTheBudgetAndEachPartitionHaveTheirState() {
    String queue = TestServer.uniqueName("state");
    String key = queue + "-per-account";
    String global = queue + "-global";
    client.budgets().put(key, BudgetPolicy.concurrency(1).perPartition());
    client.budgets().put(global, BudgetPolicy.concurrency(10));

    Job first = client.jobs().enqueue(on(queue, BudgetBinding.onPartition(key, "acct/7 é"),
        BudgetBinding.of(global)));
    assertThat(first.budgets()).containsExactly(
        new BudgetBinding(key, 1L, null, null, "acct/7 é"),
        new BudgetBinding(global, 1L, null, null, null));
    String second = client.jobs().enqueue(on(queue,
        BudgetBinding.onPartition(key, "acct/7 é").withCost(1), BudgetBinding.of(global))).id();
    String other = client.jobs().enqueue(on(queue, BudgetBinding.onPartition(key, "b"),
        BudgetBinding.of(global))).id();
    assertThat(client.jobs().get(second).budgets().get(0).partition()).isEqualTo("acct/7 é");

    try (TakeStream stream = client.jobs().take(List.of(queue), 10, null)) {
      Job delivered = stream.next();
      assertThat(delivered.id()).isEqualTo(first.id());
      assertThat(delivered.budgets().get(0).partition()).isEqualTo("acct/7 é");
      assertThat(stream.next().id()).as("its own pool").isEqualTo(other);

      BudgetWithState whole = client.budgets().state(key);
      assertThat(whole.partitioned()).isTrue();
      assertThat(whole.state().partitions()).isEqualTo(2);
      assertThat(whole.state().nextTokenAt()).isNull();
      assertThat(whole.state().inFlight()).isEqualTo(new BudgetState.JobsAndCost(2, 2));
      assertThat(whole.state().waiting()).isEqualTo(new BudgetState.JobsAndCost(1, 1));
      assertThat(client.budgets().state(global).state().partitions()).isNull();

      BudgetPartition busy = client.budgets().partition(key, "acct/7 é");
      assertThat(busy.key()).isEqualTo(key);
      assertThat(busy.partition()).isEqualTo("acct/7 é");
      assertThat(busy.state().tokens()).isZero();
      assertThat(busy.state().partitions()).isNull();
      assertThat(busy.state().waiting()).isEqualTo(new BudgetState.JobsAndCost(1, 1));
      assertThat(client.budgets().partition(key, "unused").state().tokens())
          .as("a partition not in use reads full").isEqualTo(1);

      JobWait wait = client.jobs().waitReason(second);
      assertThat(wait.budgets().get(0).partition()).isEqualTo("acct/7 é");
      assertThat(wait.budgets().get(0).reason()).isEqualTo("concurrency");
      assertThat(wait.budgets().get(1).partition()).isNull();

      assertThat(client.jobs().stream(JobQuery.all().budgetKeys(key).budgetPartitions("b"))
          .map(Job::id)).containsExactly(other);
      client.jobs().ack(first.id());
      assertThat(stream.next().id()).isEqualTo(second);
    }
  }

  @Test
  void partitionsAreListedPageByPageAndOnePartitionPausesAlone() {
    String queue = TestServer.uniqueName("pages");
    String key = queue + "-per-account";
    client.budgets().put(key, BudgetPolicy.concurrency(5).perPartition());
    List<String> values = List.of("a", "acct/7 é", "b", "c", "d");
    for (String value : List.of("d", "c", "b", "acct/7 é", "a")) {
      enqueue(queue, key, value);
    }

    assertThat(client.budgets().streamPartitions(key).map(BudgetPartition::partition))
        .containsExactlyElementsOf(values);
    Page<BudgetPartition> first = client.budgets().partitionPage(key, null, 2);
    assertThat(first.items()).extracting(BudgetPartition::partition)
        .containsExactly("a", "acct/7 é");
    Page<BudgetPartition> second = client.budgets().partitionPage(first.next());
    assertThat(second.items()).extracting(BudgetPartition::partition).containsExactly("b", "c");
    assertThat(client.budgets().partitionPage(second.prev()).items())
        .extracting(BudgetPartition::partition).containsExactly("acct/7 é", "a");
    assertThat(client.budgets().partitionPage(key, "c", 10).items())
        .extracting(BudgetPartition::partition).containsExactly("d");
    List<String> walked = new ArrayList<>();
    Page<BudgetPartition> page = client.budgets().partitionPage(key, null, 1);
    walked.add(page.items().get(0).partition());
    while (page.hasNext()) {
      page = client.budgets().partitionPage(page.next());
      page.items().forEach(p -> walked.add(p.partition()));
    }
    assertThat(walked).containsExactlyElementsOf(values);

    BudgetPartition paused = client.budgets().pausePartition(key, "acct/7 é", Duration.ofMinutes(10));
    assertThat(paused.state().pausedUntil()).isAfter(Instant.now().plus(Duration.ofMinutes(9)));
    assertThat(client.budgets().state(key).state().pausedUntil()).isNull();
    String held = client.jobs().list(JobQuery.all().budgetKeys(key).budgetPartitions("acct/7 é"))
        .items().get(0).id();
    try (TakeStream stream = client.jobs().take(List.of(queue), 10, null)) {
      List<String> others = List.of(stream.next().id(), stream.next().id(), stream.next().id(),
          stream.next().id());
      assertThat(others).doesNotContain(held);
      assertThat(client.jobs().waitReason(held).budgets().get(0).reason()).isEqualTo("paused");

      BudgetPartition resumed = client.budgets().resumePartition(key, "acct/7 é");
      assertThat(resumed.state().pausedUntil()).isNull();
      assertThat(stream.next().id()).isEqualTo(held);
    }
  }

  @Test
  void aBindingChangeKeepsOrMovesThePartition() {
    String queue = TestServer.uniqueName("rebind");
    String key = queue + "-per-account";
    client.budgets().put(key, BudgetPolicy.concurrency(5).perPartition());
    String job = client.jobs().enqueue(on(queue)).id();

    Job bound = client.bindings().add(job, BudgetBinding.onPartition(key, "a").withCost(2));
    assertThat(bound.budgets()).containsExactly(new BudgetBinding(key, 2L, null, null, "a"));
    Job patched = client.bindings().changeCost(job, key, 3);
    assertThat(patched.budgets()).containsExactly(new BudgetBinding(key, 3L, null, null, "a"));
    Job moved = client.bindings().put(job, BudgetBinding.onPartition(key, "b"));
    assertThat(moved.budgets()).containsExactly(new BudgetBinding(key, 1L, null, null, "b"));
    assertThatThrownBy(() -> client.bindings().put(job, BudgetBinding.of(key)))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("binding requires a partition");
  }

  @Test
  void settlementsAndThrottlesNameThePartition() {
    String queue = TestServer.uniqueName("settle");
    String key = queue + "-per-account";
    client.budgets().put(key, BudgetPolicy.rate(10, Duration.ofHours(1)).perPartition());
    String a = enqueue(queue, key, "a");
    String b = enqueue(queue, key, "b");
    try (TakeStream stream = client.jobs().take(List.of(queue), 10, null)) {
      assertThat(List.of(stream.next().id(), stream.next().id())).containsExactly(a, b);

      assertThatThrownBy(() -> client.jobs().ack(a, Settlement.of(key, "b", 4)))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("job is not bound to partition b of budget " + key);
      assertThat(client.jobs().get(a).status()).isEqualTo(JobStatus.IN_FLIGHT);
      client.jobs().ack(a, Settlement.of(key, "a", 4));
      assertThat(client.budgets().partition(key, "a").state().tokens()).isEqualTo(6);
      assertThat(client.jobs().get(a).budgets().get(0).settledCost()).isEqualTo(4);

      assertThatThrownBy(() -> client.jobs().fail(b,
          FailureReport.of("429").throttling(key, "a", Duration.ofMinutes(10))))
          .isInstanceOf(ValidationException.class)
          .hasMessageContaining("job is not bound to partition a of budget " + key);
      Job throttled = client.jobs().fail(b,
          FailureReport.of("429").throttling(key, "b", Duration.ofMinutes(10)));
      assertThat(throttled.status()).isEqualTo(JobStatus.READY);
      assertThat(client.budgets().partition(key, "b").state().pausedUntil())
          .isAfter(Instant.now().plus(Duration.ofMinutes(9)));
      assertThat(client.budgets().partition(key, "a").state().pausedUntil()).isNull();
    }
  }

  /** What the handler saw when the job ran again after being throttled. */
  record Rerun(Instant startedAt, int attempts, List<ErrorRecord> errors) {}

  @Test
  void aHandlerThrowingThrottledExceptionForAPartitionPausesOnlyThatPartition() throws Exception {
    String queue = TestServer.uniqueName("throttled-worker");
    String key = queue + "-api";
    client.budgets().put(key, BudgetPolicy.concurrency(5).perPartition());
    String throttledJob = enqueue(queue, key, "acct_a");
    AtomicInteger runs = new AtomicInteger();
    CompletableFuture<Instant> throttledAt = new CompletableFuture<>();
    CompletableFuture<Instant> otherRan = new CompletableFuture<>();
    CompletableFuture<Rerun> rerun = new CompletableFuture<>();
    try (Worker worker = Worker.builder(client).queues(queue).concurrency(2).build()) {
      worker.handle("call", Map.class, (payload, job) -> {
        if (!job.id().equals(throttledJob)) {
          otherRan.complete(Instant.now());
          return;
        }
        if (runs.incrementAndGet() == 1) {
          throttledAt.complete(Instant.now());
          throw new ThrottledException(key, "acct_a", Duration.ofMillis(1_000), "429");
        }
        rerun.complete(new Rerun(Instant.now(), job.attempts(),
            client.jobs().streamErrors(job.id()).toList()));
      });
      worker.start();
      throttledAt.get(10, TimeUnit.SECONDS);
      enqueue(queue, key, "acct_b");

      Instant other = otherRan.get(10, TimeUnit.SECONDS);
      Rerun second = rerun.get(10, TimeUnit.SECONDS);
      assertThat(Duration.between(throttledAt.get(), second.startedAt()))
          .isGreaterThanOrEqualTo(Duration.ofMillis(1_000));
      assertThat(other).as("another partition runs during the pause")
          .isBefore(second.startedAt());
      assertThat(second.attempts()).isZero();
      assertThat(second.errors()).singleElement()
          .satisfies(error -> assertThat(error.throttled()).isTrue());
    }
  }
}
