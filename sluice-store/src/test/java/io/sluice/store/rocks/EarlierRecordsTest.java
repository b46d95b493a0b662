package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the records written earlier in a batch hold, as a rewrite at a given place sees it. */
class EarlierRecordsTest {
  private static final JobId HELD = new JobId(1, 1);
  private static final JobId OWN_KEY = new JobId(1, 2);
  private static final JobId DELETED = new JobId(1, 3);
  private static final JobId UNTOUCHED = new JobId(1, 4);
  private static final byte[] PAYLOAD = "{}".getBytes(StandardCharsets.UTF_8);

  private static JobSnapshot job(JobId id) {
    return StoredJobs.job(id, "q");
  }

  private final List<Mutation> batch = List.of(
      new Mutation.PutJob(job(HELD), null, true, PAYLOAD),
      new Mutation.PutJob(job(OWN_KEY), null, true, PAYLOAD),
      new Mutation.PutJob(job(OWN_KEY), IndexEntry.of(job(OWN_KEY))),
      new Mutation.PutJob(job(DELETED), null, true, PAYLOAD),
      new Mutation.DeleteJob(DELETED, 0, IndexEntry.of(job(DELETED)), true),
      new Mutation.PutJob(job(HELD), IndexEntry.of(job(HELD)), true, null));

  @Test
  void seesOnlyTheMutationsBeforeThePlaceAsked() {
    EarlierRecords earlier = new EarlierRecords(batch);

    assertThat(earlier.wrote(HELD, 0)).isFalse();
    assertThat(earlier.wrote(OWN_KEY, 2)).isTrue();
    assertThat(earlier.payload(OWN_KEY)).isEqualTo(PAYLOAD);
    assertThat(earlier.wrote(DELETED, 4)).isTrue();
    assertThat(earlier.payload(DELETED)).isEqualTo(PAYLOAD);
  }

  @Test
  void tellsWhatTheLatestRecordOfEachJobHolds() {
    EarlierRecords earlier = new EarlierRecords(batch);

    assertThat(earlier.wrote(UNTOUCHED, batch.size())).isFalse();
    assertThat(earlier.wrote(HELD, batch.size())).isTrue();
    assertThat(earlier.payload(HELD)).as("a carrying rewrite keeps it").isEqualTo(PAYLOAD);
    assertThat(earlier.wrote(OWN_KEY, batch.size())).isTrue();
    assertThat(earlier.payload(OWN_KEY)).as("rewritten without it").isNull();
    assertThat(earlier.wrote(DELETED, batch.size())).isTrue();
    assertThat(earlier.payload(DELETED)).as("deleted").isNull();
  }
}
