package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnfinishedIndexTest {
  private final UnfinishedIndex index = new UnfinishedIndex();
  private final JobId a = new JobId(1, 1);
  private final JobId b = new JobId(1, 2);

  private static IndexEntry entry(String queue, String type, JobStatus status) {
    return IndexEntry.of(queue, type, status);
  }

  private static List<JobId> ids(IdCursor cursor) {
    List<JobId> ids = new ArrayList<>();
    for (; cursor.current() != null; cursor.next()) {
      ids.add(Keys.jobId(cursor.current()));
    }
    return ids;
  }

  @Test
  void aQueueThatEmptiesAndFillsAgainKeepsItsSets() {
    IndexEntry ready = entry("emails", "send", JobStatus.READY);
    for (int i = 1; i <= 3 * UnfinishedIndex.PRUNE_AT; i++) {
      JobId job = new JobId(2, i);
      index.move(job, null, ready);
      index.move(job, ready, null);
    }

    assertThat(index.setsHeld()).isEqualTo(2);
    assertThat(ids(index.queue("emails", false))).isEmpty();
    index.move(a, null, ready);
    assertThat(ids(index.queue("emails", false))).containsExactly(a);
  }

  @Test
  void namesThatComeAndGoDoNotPileUp() {
    for (int i = 1; i <= 10 * UnfinishedIndex.PRUNE_AT; i++) {
      IndexEntry ready = entry("tenant-" + i, "send-" + i, JobStatus.READY);
      JobId job = new JobId(2, i);
      index.move(job, null, ready);
      index.move(job, ready, null);
    }

    // At most the empty sets listed since the look before last.
    assertThat(index.setsHeld()).isLessThan(2 * UnfinishedIndex.PRUNE_AT);
  }

  @Test
  void quietQueuesInUseKeepTheirSetsWhileOtherNamesComeAndGo() {
    quietQueuesAmongPassingNames(40);
  }

  @Test
  void quietQueuesThatFallSilentLoseTheirSets() {
    quietQueuesAmongPassingNames(40);
    for (int i = 0; i < 10 * UnfinishedIndex.PRUNE_AT; i++) {
      IndexEntry passing = entry("later-" + i, "once-later-" + i, JobStatus.READY);
      JobId job = new JobId(3, i + 1);
      index.move(job, null, passing);
      index.move(job, passing, null);
    }

    assertThat(index.setsHeld()).isLessThan(2 * UnfinishedIndex.PRUNE_AT);
    long made = index.setsMade();
    index.move(a, null, entry("quiet-0", "send", JobStatus.READY));
    assertThat(index.setsMade() - made).as("the silent queue's and type's sets, made anew").isEqualTo(2);
  }

  private void quietQueuesAmongPassingNames(int quiet) {
    int rounds = 20;
    // Enough passing names for several looks at the emptied sets.
    int passingPerRound = UnfinishedIndex.PRUNE_AT / 4;
    int seq = 0;
    for (int round = 0; round < rounds; round++) {
      for (int q = 0; q < quiet; q++) {
        IndexEntry ready = entry("quiet-" + q, "send", JobStatus.READY);
        JobId job = new JobId(2, ++seq);
        index.move(job, null, ready);
        index.move(job, ready, null);
      }
      for (int p = 0; p < passingPerRound; p++) {
        IndexEntry passing = entry("passing-" + round + "-" + p, "once-" + round + "-" + p, JobStatus.READY);
        JobId job = new JobId(2, ++seq);
        index.move(job, null, passing);
        index.move(job, passing, null);
      }
    }

    // Each quiet queue's set and the shared type's were made once; each passing name's once.
    assertThat(index.setsMade()).isEqualTo(quiet + 1 + 2L * rounds * passingPerRound);
    // The passing names' sets went: what is left is the quiet ones and the last looks' worth.
    assertThat(index.setsHeld()).isLessThan(2 * (quiet + 1) + 2 * UnfinishedIndex.PRUNE_AT);
  }

  @Test
  void aSetFilledAgainBeforeThePruneIsKept() {
    IndexEntry kept = entry("kept", "send", JobStatus.READY);
    index.move(a, null, kept);
    index.move(a, kept, null);
    index.move(b, null, kept);
    for (int i = 1; i <= UnfinishedIndex.PRUNE_AT; i++) {
      IndexEntry passing = entry("q-" + i, "t-" + i, JobStatus.READY);
      JobId job = new JobId(2, i);
      index.move(job, null, passing);
      index.move(job, passing, null);
    }

    assertThat(ids(index.queue("kept", false))).containsExactly(b);
    assertThat(ids(index.type("send", false))).containsExactly(b);
  }

  @Test
  void listsUnfinishedJobsByQueueAndTypeInIdOrder() {
    index.move(b, null, entry("emails", "send", JobStatus.READY));
    index.move(a, null, entry("emails", "render", JobStatus.SCHEDULED));

    assertThat(ids(index.all(false))).containsExactly(a, b);
    assertThat(ids(index.all(true))).containsExactly(b, a);
    assertThat(ids(index.queue("emails", false))).containsExactly(a, b);
    assertThat(ids(index.type("send", false))).containsExactly(b);
    assertThat(ids(index.queue("other", false))).isEmpty();
  }

  @Test
  void movesAJobBetweenQueuesAndTypes() {
    IndexEntry first = entry("emails", "send", JobStatus.READY);
    IndexEntry second = entry("reports", "send", JobStatus.IN_FLIGHT);
    IndexEntry third = entry("reports", "render", JobStatus.READY);
    index.move(a, null, first);
    index.move(a, first, second);

    assertThat(ids(index.queue("emails", false))).isEmpty();
    assertThat(ids(index.queue("reports", false))).containsExactly(a);
    assertThat(ids(index.type("send", false))).containsExactly(a);

    index.move(a, second, third);
    assertThat(ids(index.type("send", false))).isEmpty();
    assertThat(ids(index.type("render", false))).containsExactly(a);
    assertThat(ids(index.all(false))).containsExactly(a);
  }

  @Test
  void dropsAJobThatFinishesOrIsDeleted() {
    IndexEntry ready = entry("emails", "send", JobStatus.READY);
    index.move(a, null, ready);
    index.move(b, null, ready);

    index.move(a, ready, entry("emails", "send", JobStatus.COMPLETED));
    index.move(b, ready, null);

    assertThat(ids(index.all(false))).isEmpty();
    assertThat(ids(index.queue("emails", false))).isEmpty();
    assertThat(ids(index.type("send", false))).isEmpty();
  }

  @Test
  void neverHoldsAFinishedJobAndTakesBackARetriedOne() {
    IndexEntry dead = entry("emails", "send", JobStatus.DEAD);
    index.move(b, null, entry("emails", "send", JobStatus.READY));
    index.move(a, null, dead);
    assertThat(ids(index.all(false))).containsExactly(b);

    index.move(a, dead, entry("emails", "send", JobStatus.READY)); // older than b
    assertThat(ids(index.all(false))).containsExactly(a, b);
    assertThat(ids(index.queue("emails", true))).containsExactly(b, a);
  }
}
