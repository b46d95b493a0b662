package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Order;
import io.sluice.client.model.Page;
import io.sluice.client.model.Range;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every filter of API.md §7.2, ordering and the page links of §7.3. */
class JobQueryTest extends SharedServerTest {
  static JobsApi jobs;

  @BeforeAll
  static void apis() {
    jobs = client.jobs();
  }

  private static List<String> ids(JobQuery query) {
    return jobs.stream(query).map(Job::id).toList();
  }

  private static List<String> reversed(List<String> ids) {
    List<String> copy = new ArrayList<>(ids);
    Collections.reverse(copy);
    return copy;
  }

  private static List<Job> enqueueNumbered(String queue, int count) {
    return jobs.enqueueAll(IntStream.range(0, count)
        .mapToObj(i -> EnqueueRequest.builder(queue, i % 2 == 0 ? "even" : "odd",
            Map.of("n", i)).priority(i).build())
        .toList());
  }

  @Test
  void paginationFollowsNextAcrossSeveralPages() {
    String queue = TestServer.uniqueName("pages");
    List<String> created = enqueueNumbered(queue, 23).stream().map(Job::id).toList();

    Page<Job> first = jobs.list(JobQuery.all().queues(queue).limit(10));
    assertThat(first.items()).hasSize(10);
    assertThat(first.prev()).isNull();
    assertThat(first.next()).startsWith("/jobs?from=");
    Page<Job> second = jobs.page(first.next());
    assertThat(second.items()).extracting(Job::id).isEqualTo(created.subList(10, 20));
    assertThat(jobs.page(second.prev()).items()).extracting(Job::id)
        .as("prev walks back in reverse order").isEqualTo(reversed(created.subList(0, 10)));

    assertThat(ids(JobQuery.all().queues(queue).limit(10))).isEqualTo(created);
    assertThat(ids(JobQuery.all().queues(queue).limit(7).order(Order.DESC)))
        .isEqualTo(reversed(created));
    assertThat(ids(JobQuery.all().queues(queue).limit(5).from(created.get(20))))
        .isEqualTo(created.subList(21, 23));
  }

  @Test
  void setFiltersMatchAnyListedValue() {
    String queue = TestServer.uniqueName("sets");
    String other = TestServer.uniqueName("sets-other");
    List<Job> created = enqueueNumbered(queue, 6);
    String elsewhere = jobs.enqueue(EnqueueRequest.builder(other, "even", null).build()).id();

    assertThat(ids(JobQuery.all().queues(queue, other).types("even"))).hasSize(4)
        .contains(elsewhere);
    assertThat(ids(JobQuery.all().ids(created.get(1).id(), elsewhere)))
        .containsExactly(created.get(1).id(), elsewhere);
    assertThat(ids(JobQuery.all().queues(queue).types("odd", "even"))).hasSize(6);
  }

  @Test
  void rangeFilters() {
    String queue = TestServer.uniqueName("ranges");
    List<Job> created = enqueueNumbered(queue, 6);
    Instant later = Instant.now().plusSeconds(3600);
    String scheduled = jobs.enqueue(
        EnqueueRequest.builder(queue, "late", null).priority(100).readyAt(later).build()).id();

    assertThat(ids(JobQuery.all().queues(queue).priority(Range.between(2, 4))))
        .containsExactly(created.get(2).id(), created.get(3).id(), created.get(4).id());
    assertThat(ids(JobQuery.all().queues(queue).priority(Range.exactly(5))))
        .containsExactly(created.get(5).id());
    assertThat(ids(JobQuery.all().queues(queue).priority(Range.atLeast(5))))
        .containsExactly(created.get(5).id(), scheduled);
    assertThat(ids(JobQuery.all().queues(queue).priority(Range.atMost(0))))
        .containsExactly(created.get(0).id());
    assertThat(ids(JobQuery.all().queues(queue).readyAt(Range.atLeast(later.toEpochMilli()))))
        .containsExactly(scheduled);
    assertThat(jobs.count(JobQuery.all().queues(queue)
        .readyAt(Range.between(Instant.EPOCH, later.minusSeconds(60))))).isEqualTo(6);
  }

  @Test
  void statusAndAttemptsFilters() {
    String queue = TestServer.uniqueName("status");
    List<Job> created = enqueueNumbered(queue, 3);
    try (TakeStream stream = jobs.take(List.of(queue), 1, null)) {
      Job taken = stream.next();
      jobs.fail(taken.id(), FailureReport.of("no").retryingAt(Instant.now().plusSeconds(600)));
    }
    // The failure freed the stream's one slot, so the next job may have been delivered before
    // the stream closed; the server puts it back once it sees the close, on another connection.
    Await.until(() -> jobs.count(JobQuery.all().queues(queue).statuses(JobStatus.IN_FLIGHT)) == 0,
        "no job of " + queue + " in flight");

    assertThat(ids(JobQuery.all().queues(queue).statuses(JobStatus.SCHEDULED)))
        .containsExactly(created.get(0).id());
    assertThat(ids(JobQuery.all().queues(queue).statuses(JobStatus.READY, JobStatus.DEAD)))
        .containsExactly(created.get(1).id(), created.get(2).id());
    assertThat(ids(JobQuery.all().queues(queue).attempts(Range.atLeast(1))))
        .containsExactly(created.get(0).id());
  }

  @Test
  void budgetKeyAndJqFilters() {
    String queue = TestServer.uniqueName("jq");
    String budget = TestServer.uniqueName("jq-budget");
    client.budgets().put(budget, BudgetPolicy.concurrency(5));
    String bound = jobs.enqueue(EnqueueRequest.builder(queue, "work", Map.of("to", "a@x.io"))
        .budgets(BudgetBinding.of(budget)).build()).id();
    String plain = jobs.enqueue(
        EnqueueRequest.builder(queue, "work", Map.of("to", "b@y.io")).build()).id();

    assertThat(ids(JobQuery.all().queues(queue).budgetKeys(budget, "absent")))
        .containsExactly(bound);
    assertThat(ids(JobQuery.all().queues(queue).filter(".to | endswith(\"@y.io\")")))
        .containsExactly(plain);
    assertThat(jobs.count(JobQuery.all().queues(queue).filter(".to != null"))).isEqualTo(2);
  }
}
