package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where a job's payload is stored: a small one in the job's record, so that the job is one stored
 * key and one deletion (docs/decisions.md "Small payloads in the job's record"). The harness
 * itself fails any write that would lose a payload the record holds.
 */
class PayloadInRecordTest {
  private final MemoryJobStore store = new MemoryJobStore();
  private EngineHarness h = EngineHarness.writingTo(store);

  /** A JSON string whose canonical form is {@code bytes} long. */
  private static String jsonOfLength(int bytes) {
    return "\"" + "x".repeat(bytes - 2) + "\"";
  }

  private static String text(byte[] payload) {
    return new String(payload, StandardCharsets.UTF_8);
  }

  private List<Mutation> written(Class<? extends Mutation> type) {
    return h.writtenMutations().stream().filter(type::isInstance).toList();
  }

  @Test
  void aSmallPayloadIsWrittenInTheRecordAndNowhereElse() {
    String payload = jsonOfLength(JobWrites.MAX_PAYLOAD_IN_RECORD);
    h.enqueue(EngineHarness.job("q").payload(payload));

    assertThat(written(Mutation.PutPayload.class)).isEmpty();
    assertThat(written(Mutation.PutJob.class)).singleElement().satisfies(record -> {
      Mutation.PutJob put = (Mutation.PutJob) record;
      assertThat(put.payloadInRecord()).isTrue();
      assertThat(text(put.payload())).isEqualTo(payload);
      assertThat(put.job().payload()).as("the snapshot, which the answer shares").isNull();
    });
  }

  @Test
  void aPayloadOverTheLimitHasAKeyOfItsOwn() {
    String payload = jsonOfLength(JobWrites.MAX_PAYLOAD_IN_RECORD + 1);
    JobSnapshot job = h.enqueue(EngineHarness.job("q").payload(payload));

    assertThat(written(Mutation.PutJob.class)).singleElement()
        .satisfies(record -> assertThat(((Mutation.PutJob) record).payloadInRecord()).isFalse());
    assertThat(written(Mutation.PutPayload.class)).singleElement()
        .satisfies(own -> assertThat(text(((Mutation.PutPayload) own).payload()))
            .isEqualTo(payload));
    assertThat(text(store.readPayload(job.id()))).isEqualTo(payload);
  }

  @Test
  void aRetryRewritesTheRecordWithThePayloadItHolds() {
    JobSnapshot job = h.enqueue(EngineHarness.job("q").payload("{\"n\":1}").retryLimit(3));
    h.openWorker("q", 1);
    h.dispatch();

    h.fail(job.id());

    Mutation.PutJob rewrite = (Mutation.PutJob) h.writtenMutations().stream()
        .filter(Mutation.PutJob.class::isInstance).reduce((first, last) -> last).orElseThrow();
    assertThat(rewrite.job().status()).isEqualTo(JobStatus.SCHEDULED);
    assertThat(rewrite.payloadInRecord()).isTrue();
    assertThat(text(store.readPayload(job.id()))).isEqualTo("{\"n\":1}");
  }

  /** Takes and completes both jobs; asserts that only the small one's record held its payload. */
  private void completeAndExpectOnlyTheFirstDeletionToTakeThePayload(JobId small, JobId large) {
    h.openWorker("q", 2);
    h.dispatch();
    h.completeAll(small, large);
    assertThat(written(Mutation.DeleteJob.class))
        .extracting(delete -> ((Mutation.DeleteJob) delete).payloadInRecord())
        .containsExactly(true, false);
  }

  @Test
  void completingTheJobDeletesOneKeyWhereThePayloadIsInTheRecord() {
    JobSnapshot small = h.enqueue(EngineHarness.job("q").payload("{}"));
    JobSnapshot large = h.enqueue(EngineHarness.job("q")
        .payload(jsonOfLength(JobWrites.MAX_PAYLOAD_IN_RECORD + 1)));

    completeAndExpectOnlyTheFirstDeletionToTakeThePayload(small.id(), large.id());

    assertThat(store.readPayload(small.id())).isNull();
    assertThat(store.readPayload(large.id())).isNull();
  }

  @Test
  void aRecoveredJobKnowsItsRecordHoldsThePayloadWithoutKeepingItInMemory() {
    JobSnapshot small = h.enqueue(EngineHarness.job("q").payload("{\"n\":2}"));
    JobSnapshot large = h.enqueue(EngineHarness.job("q")
        .payload(jsonOfLength(JobWrites.MAX_PAYLOAD_IN_RECORD + 1)));

    h = h.restartFromStore();

    assertThat(h.get(small.id()).payload()).isNull();
    assertThat(h.get(large.id()).payload()).isNull();
    completeAndExpectOnlyTheFirstDeletionToTakeThePayload(small.id(), large.id());
  }
}
