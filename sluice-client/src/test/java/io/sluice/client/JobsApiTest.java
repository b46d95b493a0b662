package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.Backoff;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorQuery;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobPatch;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Order;
import io.sluice.client.model.Page;
import io.sluice.client.model.Retention;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class JobsApiTest extends SharedServerTest {
  static JobsApi jobs;

  record Email(String to, int attempt) {}

  @BeforeAll
  static void apis() {
    jobs = client.jobs();
  }

  static EnqueueRequest simple(String queue) {
    return EnqueueRequest.builder(queue, "work", Map.of("n", 1)).build();
  }

  @Test
  void healthAndVersion() {
    assertThat(client.health()).isEqualTo("ok");
    assertThat(client.version()).isEqualTo("0.7.0");
    assertThat(client.isCompatible()).isTrue();
  }

  @Test
  void enqueueSendsEveryJobOption() {
    String queue = TestServer.uniqueName("options");
    Instant later = Instant.now().plus(Duration.ofHours(1));
    client.budgets().put(queue + "-existing", BudgetPolicy.concurrency(10));
    EnqueueRequest request = EnqueueRequest.builder(queue, "send_email", new Email("a@b.c", 1))
        .priority(7)
        .readyAt(later)
        .retryLimit(3)
        .backoff(new Backoff(Duration.ofMillis(100), 1.5f, Duration.ofMillis(20)))
        .retention(new Retention(Duration.ofMinutes(5), Duration.ofHours(2)))
        .budgets(BudgetBinding.of(queue + "-existing", 2),
            BudgetBinding.of(queue + "-new").withCreate(BudgetPolicy.concurrency(4)))
        .build();

    Job created = jobs.enqueue(request);

    assertThat(created.id()).matches("[0-9a-z]{25}");
    assertThat(created.duplicate()).isFalse();
    assertThat(created.folded()).isFalse();
    assertThat(created.payload()).as("enqueue answers without payload").isNull();
    Job stored = jobs.get(created.id());
    assertThat(stored.status()).isEqualTo(JobStatus.SCHEDULED);
    assertThat(stored.queue()).isEqualTo(queue);
    assertThat(stored.type()).isEqualTo("send_email");
    assertThat(stored.priority()).isEqualTo(7);
    assertThat(stored.readyAt()).isEqualTo(Instant.ofEpochMilli(later.toEpochMilli()));
    assertThat(stored.retryLimit()).isEqualTo(3L);
    assertThat(stored.backoff())
        .isEqualTo(new Backoff(Duration.ofMillis(100), 1.5f, Duration.ofMillis(20)));
    assertThat(stored.retention())
        .isEqualTo(new Retention(Duration.ofMinutes(5), Duration.ofHours(2)));
    assertThat(stored.budgets()).containsExactly(
        BudgetBinding.of(queue + "-existing", 2), BudgetBinding.of(queue + "-new", 1));
    assertThat(stored.payload().get("to").textValue()).isEqualTo("a@b.c");
    assertThat(client.budgets().get(queue + "-new").allocation()).isEqualTo(4);
  }

  @Test
  void enqueueDefaultsAndNullPayload() {
    String queue = TestServer.uniqueName("defaults");
    Job created = jobs.enqueue(EnqueueRequest.builder(queue, "work", null).build());

    Job stored = jobs.get(created.id());
    assertThat(stored.status()).isEqualTo(JobStatus.READY);
    assertThat(stored.priority()).isEqualTo(32768);
    assertThat(stored.payload().isNull()).isTrue();
    assertThat(stored.retryLimit()).isNull();
    assertThat(stored.backoff()).isNull();
    assertThat(stored.budgets()).isNull();
  }

  @Test
  void bulkEnqueueKeepsRequestOrder() {
    String queue = TestServer.uniqueName("bulk");
    List<EnqueueRequest> requests = IntStream.range(0, 5)
        .mapToObj(i -> EnqueueRequest.builder(queue, "t" + i, Map.of("i", i)).build())
        .toList();

    List<Job> created = jobs.enqueueAll(requests);

    assertThat(created).extracting(Job::type).containsExactly("t0", "t1", "t2", "t3", "t4");
    assertThat(jobs.count(JobQuery.all().queues(queue))).isEqualTo(5);
    assertThat(jobs.enqueueAll(List.of())).isEmpty();
  }

  @Test
  void bulkEnqueueIsAllOrNothing() {
    String queue = TestServer.uniqueName("atomic");
    List<EnqueueRequest> requests = List.of(simple(queue),
        EnqueueRequest.builder("", "work", null).build());

    assertThatThrownBy(() -> jobs.enqueueAll(requests))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("jobs[1]: queue must not be empty");
    assertThat(jobs.count(JobQuery.all().queues(queue))).isZero();
  }

  @Test
  void countsDeletesAndListsQueues() {
    String queue = TestServer.uniqueName("count");
    String id = jobs.enqueue(simple(queue)).id();
    jobs.enqueue(simple(queue));
    jobs.enqueue(EnqueueRequest.builder(queue, "other", null).build());

    assertThat(client.queues()).contains(queue);
    assertThat(jobs.count(JobQuery.all().queues(queue))).isEqualTo(3);
    assertThat(jobs.count(JobQuery.all().queues(queue).types("other"))).isEqualTo(1);

    jobs.delete(id);
    assertThatThrownBy(() -> jobs.get(id)).isInstanceOf(NotFoundException.class);
    assertThat(jobs.deleteAll(JobQuery.all().queues(queue).types("work"))).isEqualTo(1);
    assertThat(jobs.count(JobQuery.all().queues(queue))).isEqualTo(1);
  }

  @Test
  void patchesOneJob() {
    String queue = TestServer.uniqueName("patch");
    String moved = TestServer.uniqueName("patched");
    String id = jobs.enqueue(EnqueueRequest.builder(queue, "work", null)
        .readyAt(Instant.now().plusSeconds(3600)).retryLimit(9).build()).id();

    Job patched = jobs.patch(id, JobPatch.create()
        .queue(moved)
        .priority(3)
        .readyNow()
        .defaultRetryLimit()
        .backoff(new Backoff(Duration.ofMillis(5), 2f, Duration.ZERO))
        .completedRetention(Duration.ofMinutes(1)));

    assertThat(patched.queue()).isEqualTo(moved);
    assertThat(patched.priority()).isEqualTo(3);
    assertThat(patched.status()).isEqualTo(JobStatus.READY);
    assertThat(patched.retryLimit()).isNull();
    assertThat(patched.backoff().base()).isEqualTo(Duration.ofMillis(5));
    assertThat(patched.retention()).isEqualTo(new Retention(Duration.ofMinutes(1), null));

    Job cleared = jobs.patch(id, JobPatch.create().defaultBackoff().defaultRetention()
        .readyAt(Instant.now().plusSeconds(600)));
    assertThat(cleared.backoff()).isNull();
    assertThat(cleared.retention()).isNull();
    assertThat(cleared.status()).isEqualTo(JobStatus.SCHEDULED);
  }

  @Test
  void patchesEveryMatchingJob() {
    String queue = TestServer.uniqueName("bulk-patch");
    jobs.enqueueAll(List.of(simple(queue), simple(queue), simple(queue)));

    long patched = jobs.patchAll(JobQuery.all().queues(queue), JobPatch.create().priority(11));

    assertThat(patched).isEqualTo(3);
    assertThat(jobs.stream(JobQuery.all().queues(queue))).extracting(Job::priority)
        .containsOnly(11);
  }

  @Test
  void workerProtocolTakeAckFailAndErrors() {
    String queue = TestServer.uniqueName("protocol");
    List<Job> created = jobs.enqueueAll(List.of(simple(queue), simple(queue), simple(queue)));

    try (TakeStream stream = jobs.take(List.of(queue), 3, "test-worker")) {
      Job first = stream.next();
      Job second = stream.next();
      Job third = stream.next();
      assertThat(List.of(first.id(), second.id(), third.id()))
          .containsExactlyElementsOf(created.stream().map(Job::id).toList());
      assertThat(first.status()).isEqualTo(JobStatus.IN_FLIGHT);
      assertThat(first.dequeuedAt()).isNotNull();

      jobs.ack(first.id());
      assertThat(jobs.ackAll(List.of(second.id(), first.id()))).containsExactly(first.id());

      Job failed = jobs.fail(third.id(), FailureReport.of(new IllegalStateException("boom")));
      assertThat(failed.attempts()).isEqualTo(1);
      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThatThrownBy(() -> jobs.ack(third.id())).isInstanceOf(NotFoundException.class);

      Page<ErrorRecord> errors = jobs.errors(third.id(), ErrorQuery.all());
      assertThat(errors.items()).hasSize(1);
      ErrorRecord error = jobs.error(third.id(), 1);
      assertThat(error.message()).isEqualTo("boom");
      assertThat(error.errorType()).isEqualTo("java.lang.IllegalStateException");
      assertThat(error.backtrace()).contains("workerProtocolTakeAckFailAndErrors");
      assertThat(error.failedAt()).isNotNull();
    }
  }

  @Test
  void failureCanKillOrPickTheRetryTime() {
    String queue = TestServer.uniqueName("fail-modes");
    jobs.enqueueAll(List.of(simple(queue), simple(queue)));
    Instant retryAt = Instant.now().plusSeconds(120);

    try (TakeStream stream = jobs.take(List.of(queue), 2, null)) {
      Job killed = jobs.fail(stream.next().id(), FailureReport.of("bad input").killed());
      Job retried = jobs.fail(stream.next().id(), FailureReport.of("later").retryingAt(retryAt));

      assertThat(killed.status()).isEqualTo(JobStatus.DEAD);
      assertThat(retried.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(retried.readyAt()).isEqualTo(Instant.ofEpochMilli(retryAt.toEpochMilli()));
    }
  }

  @Test
  void errorListingPagesThroughEveryAttempt() {
    String queue = TestServer.uniqueName("errors");
    String id = jobs.enqueue(simple(queue)).id();
    try (TakeStream stream = jobs.take(List.of(queue), 1, null)) {
      for (int attempt = 1; attempt <= 3; attempt++) {
        assertThat(stream.next().id()).isEqualTo(id);
        jobs.fail(id, FailureReport.of("attempt " + attempt).retryingAt(Instant.EPOCH));
      }
    }

    Page<ErrorRecord> firstPage = jobs.errors(id, ErrorQuery.all().limit(2));
    assertThat(firstPage.items()).extracting(ErrorRecord::attempt).containsExactly(1, 2);
    assertThat(jobs.errorPage(firstPage.next()).items()).extracting(ErrorRecord::attempt)
        .containsExactly(3);
    assertThat(jobs.errors(id, ErrorQuery.all()
            .order(Order.DESC).fromAttempt(3)).items())
        .extracting(ErrorRecord::message).containsExactly("attempt 2", "attempt 1");
    assertThat(jobs.streamErrors(id)).hasSize(3);
  }
}
