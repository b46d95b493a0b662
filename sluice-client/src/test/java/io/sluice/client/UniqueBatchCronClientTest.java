package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.Batch;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.CronEntry;
import io.sluice.client.model.CronEntrySpec;
import io.sluice.client.model.CronGroup;
import io.sluice.client.model.CronGroupPatch;
import io.sluice.client.model.CronGroupSpec;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.UniqueWhile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Client methods for unique jobs, batches and cron (API.md §4.5, §4.6, §9). */
class UniqueBatchCronClientTest extends SharedServerTest {
  @Test
  void uniqueKeyDeduplicatesWhileQueued() {
    String queue = TestServer.uniqueName("unique");
    EnqueueRequest request = EnqueueRequest.builder(queue, "sync", Map.of("user", 1))
        .unique(queue + ":user:1", UniqueWhile.QUEUED).build();

    Job first = client.jobs().enqueue(request);
    Job second = client.jobs().enqueue(request);

    assertThat(first.duplicate()).isFalse();
    assertThat(second.duplicate()).isTrue();
    assertThat(second.id()).isEqualTo(first.id());
    assertThat(client.jobs().get(first.id()).uniqueWhile()).isEqualTo(UniqueWhile.QUEUED);
    assertThat(client.jobs().get(first.id()).uniqueKey()).isEqualTo(queue + ":user:1");
    List<Job> bulk = client.jobs().enqueueAll(List.of(request, request));
    assertThat(bulk).allMatch(Job::duplicate);
    assertThat(client.jobs().count(JobQuery.all().queues(queue))).isEqualTo(1);
  }

  @Test
  void batchFoldsIntoTheOpenJob() {
    String queue = TestServer.uniqueName("batch");
    Batch batch = new Batch(queue, "true", "{ids: ($existing.ids + $new.ids)}");
    Job opened = client.jobs().enqueue(EnqueueRequest.builder(queue, "digest",
        Map.of("ids", List.of(1))).batch(batch).build());
    Job folded = client.jobs().enqueue(EnqueueRequest.builder(queue, "digest",
        Map.of("ids", List.of(2))).batch(batch).build());

    assertThat(opened.folded()).isFalse();
    assertThat(folded.folded()).isTrue();
    assertThat(folded.id()).isEqualTo(opened.id());
    Job stored = client.jobs().get(opened.id());
    assertThat(stored.batch()).isEqualTo(batch);
    assertThat(stored.payload().get("ids")).hasSize(2);
  }

  @Test
  void uniqueKeyWithBatchIsRejected() {
    EnqueueRequest request = EnqueueRequest.builder("q", "t", null)
        .unique("k").batch(new Batch("k", "true", "$new")).build();
    assertThatThrownBy(() -> client.jobs().enqueue(request))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("unique_key and batch cannot be combined");
  }

  @Test
  void cronGroupsAndEntries() {
    String group = TestServer.uniqueName("nightly");
    String queue = TestServer.uniqueName("cron-queue");
    String budget = TestServer.uniqueName("cron-budget");
    EnqueueRequest template = EnqueueRequest.builder(queue, "cleanup", Map.of("deep", true))
        .budgets(BudgetBinding.of(budget, 2).withCreate(BudgetPolicy.concurrency(5))).build();

    CronGroup put = client.crons().put(group, new CronGroupSpec(false, "Europe/Rome",
        List.of(CronEntrySpec.of("b-cleanup", "0 3 * * *", template),
            CronEntrySpec.of("a-vacuum", "*/5 * * * *", template))));
    assertThat(put.entries()).extracting(CronEntry::name)
        .containsExactly("b-cleanup", "a-vacuum");
    assertThat(put.timezone()).isEqualTo("Europe/Rome");
    assertThat(put.entries().get(0).nextEnqueueAt()).isNotNull();
    assertThat(put.entries().get(0).job().priority()).isEqualTo(32768);
    assertThat(put.entries().get(0).job().budgets()).containsExactly(BudgetBinding.of(budget, 2));
    assertThat(client.crons().groups()).contains(group);
    assertThat(client.crons().get(group).entries()).extracting(CronEntry::name)
        .containsExactly("a-vacuum", "b-cleanup");

    CronGroup paused = client.crons().patch(group,
        CronGroupPatch.create().paused(true).clearTimezone());
    assertThat(paused.paused()).isTrue();
    assertThat(paused.pausedAt()).isNotNull();
    assertThat(paused.timezone()).isNull();

    CronEntry added = client.crons().addEntry(group,
        CronEntrySpec.of("c-report", "0 0 1 * *", template));
    assertThat(added.paused()).isFalse();
    assertThatThrownBy(() -> client.crons().addEntry(group,
        CronEntrySpec.of("c-report", "0 0 1 * *", template)))
        .isInstanceOf(ConflictException.class);
    CronEntry replaced = client.crons().putEntry(group, "c-report",
        new CronEntrySpec(null, "0 6 * * MON", "UTC", null, template));
    assertThat(replaced.expression()).isEqualTo("0 6 * * MON");
    assertThat(replaced.timezone()).isEqualTo("UTC");
    assertThat(client.crons().setEntryPaused(group, "c-report", true).pausedAt()).isNotNull();
    assertThat(client.crons().getEntry(group, "c-report").paused()).isTrue();

    client.crons().deleteEntry(group, "c-report");
    assertThatThrownBy(() -> client.crons().getEntry(group, "c-report"))
        .isInstanceOf(NotFoundException.class);
    assertThatThrownBy(() -> client.crons().put(group,
        CronGroupSpec.of(CronEntrySpec.of("bad", "not a cron", template))))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> client.budgets().delete(budget))
        .isInstanceOf(ConflictException.class);

    client.crons().delete(group);
    assertThatThrownBy(() -> client.crons().get(group)).isInstanceOf(NotFoundException.class);
    client.crons().put(group, CronGroupSpec.of(CronEntrySpec.of("x", "@daily", template)));
    assertThat(client.crons().deleteAll()).isGreaterThanOrEqualTo(1);
    assertThat(client.crons().groups()).isEmpty();
  }
}
