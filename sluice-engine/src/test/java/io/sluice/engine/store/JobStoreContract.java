package io.sluice.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineHarness;
import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.StrategyType;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.store.IndexEntry.State;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeMap;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JobStore} must do, stated through the interface alone. An implementation's
 * test extends this class (it ships in the engine's test-jar) and supplies {@link #open()} and
 * {@link #reopen()}. Each test runs on the test thread against a store over empty data, which is
 * closed after it: a second time when the test closed it itself.
 */
public abstract class JobStoreContract {
  private static final long T0 = 1_700_000_000_000L;

  private final JobIdGenerator ids = new JobIdGenerator();
  private JobStore store;

  /** A new store over empty data; called once before each test. */
  protected abstract JobStore open();

  /**
   * Closes the store last returned by {@link #open()} or {@code reopen()}, and returns a new one
   * over the same data, as a restarted server would open it.
   */
  protected abstract JobStore reopen();

  @BeforeEach
  void openStore() {
    store = open();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private void restart() {
    store = reopen();
  }

  private void commit(Mutation... mutations) {
    store.commit(new CommitBatch(List.of(mutations), false));
  }

  private List<JobSnapshot> scan() {
    List<JobSnapshot> found = new ArrayList<>();
    store.scanJobs(found::add);
    return found;
  }

  private JobSnapshot plainJob(JobId id) {
    return new JobSnapshot(id, "send_email", "emails", 32768, JobStatus.READY, T0, 0, null, null,
        null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
  }

  private JobSnapshot jobWithEveryField(JobId id) {
    return new JobSnapshot(id, "résumé_ünïcode", "q:☃", 7, JobStatus.COMPLETED, T0 + 1, 4, 9,
        new BackoffPolicy(1_500, 2.5f, 250), new RetentionPolicy(60_000L, 3_600_000L), T0 + 2,
        T0 + 3, T0 + 4, T0 + 60_004, null);
  }

  private static ErrorRecord error(int attempt) {
    return new ErrorRecord(
        attempt, "failure " + attempt, null, null, T0 + attempt, T0 + attempt + 1);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static List<Integer> attempts(List<ErrorRecord> records) {
    return records.stream().map(ErrorRecord::attempt).toList();
  }

  /** An id with fixed high bits, so that ids between, before and after stored ones can be named. */
  private static JobId id(long lo) {
    return new JobId(7, lo);
  }

  private static JobSnapshot job(JobId id, String queue, String type, JobStatus status) {
    return new JobSnapshot(id, type, queue, 0, status, T0, 0, null, null, null, Job.NONE,
        Job.NONE, Job.NONE, Job.NONE, null);
  }

  /** Five jobs, ids 10 to 50 in their low bits, in three queues, two types and every class. */
  private final JobSnapshot a = job(id(10), "emails", "send", JobStatus.READY);
  private final JobSnapshot b = job(id(20), "reports", "render", JobStatus.SCHEDULED);
  private final JobSnapshot c = job(id(30), "emails", "render", JobStatus.COMPLETED);
  private final JobSnapshot d = job(id(40), "emails", "send", JobStatus.IN_FLIGHT);
  private final JobSnapshot e = job(id(50), "billing", "send", JobStatus.DEAD);

  /** Commits {@link #a} to {@link #e} out of id order, over two batches. */
  private void writeFiveJobs() {
    commit(new Mutation.PutJob(e), new Mutation.PutJob(c), new Mutation.PutJob(a));
    commit(new Mutation.PutJob(d), new Mutation.PutJob(b));
  }

  /** Overwrites the stored record {@code stored} with {@code next}, as the engine would. */
  private static Mutation.PutJob rewrite(JobSnapshot stored, JobSnapshot next) {
    return new Mutation.PutJob(next, IndexEntry.of(stored));
  }

  private static Mutation.DeleteJob delete(JobSnapshot stored) {
    return new Mutation.DeleteJob(stored.id(), stored.errorRecords(), IndexEntry.of(stored));
  }

  /** Every record left in {@code scan}, which is then closed. */
  private static List<JobSnapshot> drain(JobStore.JobScan scan) {
    try (scan) {
      List<JobSnapshot> found = new ArrayList<>();
      scan.forEachRemaining(found::add);
      return found;
    }
  }

  private static List<JobId> idsOf(List<JobSnapshot> jobs) {
    return jobs.stream().map(JobSnapshot::id).toList();
  }

  private List<JobId> scanIds(JobId after, boolean descending) {
    return idsOf(drain(store.scanJobs(after, descending)));
  }

  private List<JobId> scanIds(IndexQuery query, JobId after, boolean descending) {
    return idsOf(drain(store.scanJobs(query, after, descending)));
  }

  private static IndexQuery queues(String... queues) {
    return new IndexQuery(Set.of(queues), null, null);
  }

  private static IndexQuery types(String... types) {
    return new IndexQuery(null, Set.of(types), null);
  }

  private static IndexQuery states(State... states) {
    return new IndexQuery(null, null, Set.of(states));
  }

  /** Checks the records {@code query} lists in both directions, and its count. */
  private void assertMatches(IndexQuery query, JobSnapshot... ascending) {
    List<JobSnapshot> expected = List.of(ascending);
    List<JobSnapshot> descending = new ArrayList<>(expected);
    Collections.reverse(descending);
    assertThat(drain(store.scanJobs(query, null, false))).as("ascending %s", query)
        .containsExactlyElementsOf(expected);
    assertThat(drain(store.scanJobs(query, null, true))).as("descending %s", query)
        .containsExactlyElementsOf(descending);
    assertThat(store.countJobs(query)).as("count %s", query).isEqualTo(expected.size());
  }

  private static BudgetView budget(String key, long allocation) {
    return new BudgetView(key, new BudgetPolicy(allocation, StrategyType.TIME_BASED, 60_000, null),
        T0, T0 + allocation);
  }

  private List<BudgetView> budgets() {
    List<BudgetView> found = new ArrayList<>();
    store.scanBudgets(found::add);
    found.sort(Comparator.comparing(BudgetView::key));
    return found;
  }

  private Map<String, BucketState> bucketStates() {
    Map<String, BucketState> found = new TreeMap<>();
    store.scanBucketStates(found::put);
    return found;
  }

  private Map<String, JobId> pointers(Mutation.Pointer kind) {
    Map<String, JobId> found = new TreeMap<>();
    store.scanPointers(kind, (key, job) ->
        assertThat(found.put(key, job)).as("%s %s fed once", kind, key).isNull());
    return found;
  }

  /** Every cron group's record in hex, in the order fed. */
  private Map<String, String> cronGroups() {
    Map<String, String> found = new LinkedHashMap<>();
    store.scanCronGroups((name, record) -> assertThat(
        found.put(name, HexFormat.of().formatHex(record))).as("%s fed once", name).isNull());
    return found;
  }

  /**
   * What a store shows through its reads: every job record, budget, pointer and cron group, and
   * the payloads (as UTF-8) and error records of the {@code probed} jobs.
   */
  private record Contents(List<JobSnapshot> jobs, Map<JobId, String> payloads,
      Map<JobId, List<ErrorRecord>> errors, List<BudgetView> budgets,
      Map<String, JobId> uniqueClaims, Map<String, JobId> openBatches,
      Map<String, String> cronGroups) {}

  private Contents contents(JobId... probed) {
    Map<JobId, String> payloads = new TreeMap<>();
    Map<JobId, List<ErrorRecord>> errors = new TreeMap<>();
    for (JobId id : probed) {
      byte[] payload = store.readPayload(id);
      if (payload != null) {
        payloads.put(id, new String(payload, StandardCharsets.UTF_8));
      }
      List<ErrorRecord> records = store.readErrors(id, 0, false, 100);
      if (!records.isEmpty()) {
        errors.put(id, records);
      }
    }
    return new Contents(scan(), payloads, errors, budgets(),
        pointers(Mutation.Pointer.UNIQUE_CLAIM), pointers(Mutation.Pointer.OPEN_BATCH),
        cronGroups());
  }

  @Nested
  class ScanJobs {
    @Test
    void returnsTheCommittedJobRecordsAfterReopening() {
      JobSnapshot plain = plainJob(ids.next(T0));
      JobSnapshot full = jobWithEveryField(ids.next(T0));
      commit(new Mutation.PutJob(plain), new Mutation.PutJob(full));

      restart();

      assertThat(scan()).containsExactly(plain, full);
    }

    @Test
    void roundTripsEachOptionalFieldOnItsOwn() {
      JobId a = ids.next(T0);
      JobId b = ids.next(T0);
      JobId c = ids.next(T0);
      JobSnapshot onlyRetryLimit = new JobSnapshot(a, "t", "q", 0, JobStatus.SCHEDULED, T0, 0, 0,
          null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
      JobSnapshot onlyCompletedRetention = new JobSnapshot(b, "t", "q", 65535, JobStatus.DEAD, T0,
          26, null, null, new RetentionPolicy(0L, null), T0, T0, Job.NONE, T0 + 5, null);
      JobSnapshot onlyDeadRetentionAndBackoff = new JobSnapshot(c, "t", "q", 1,
          JobStatus.IN_FLIGHT, Long.MAX_VALUE, 1, null, new BackoffPolicy(0, 0f, 0),
          new RetentionPolicy(null, Long.MAX_VALUE), T0, Job.NONE, Job.NONE, Job.NONE, null);
      commit(new Mutation.PutJob(onlyRetryLimit), new Mutation.PutJob(onlyCompletedRetention),
          new Mutation.PutJob(onlyDeadRetentionAndBackoff));

      restart();

      assertThat(scan())
          .containsExactly(onlyRetryLimit, onlyCompletedRetention, onlyDeadRetentionAndBackoff);
    }

    @Test
    void feedsJobsInIdOrderWhateverTheCommitOrder() {
      JobSnapshot first = plainJob(ids.next(T0));
      JobSnapshot second = plainJob(ids.next(T0 + 1));
      JobSnapshot third = plainJob(ids.next(T0 + 1_000_000));
      commit(new Mutation.PutJob(third));
      commit(new Mutation.PutJob(first), new Mutation.PutJob(second));

      assertThat(scan()).containsExactly(first, second, third);
    }

    @Test
    void keepsOnlyTheLatestVersionOfAJob() {
      JobSnapshot ready = plainJob(ids.next(T0));
      commit(new Mutation.PutJob(ready));

      JobSnapshot completed = ready.withStatus(JobStatus.COMPLETED);
      store.commit(new CommitBatch(List.of(new Mutation.PutJob(completed)), true));
      restart();

      assertThat(scan()).containsExactly(completed);
    }

    @Test
    void findsNothingInAnEmptyStore() {
      assertThat(scan()).isEmpty();
    }
  }

  @Nested
  class EmptyStore {
    @Test
    void holdsNoJobsBudgetsPointersOrCronGroups() {
      assertThat(contents(id(1))).isEqualTo(new Contents(List.of(), Map.of(), Map.of(),
          List.of(), Map.of(), Map.of(), Map.of()));
      assertThat(store.readJob(id(1))).isNull();
      assertThat(scanIds(null, false)).isEmpty();
      assertThat(scanIds(null, true)).isEmpty();
      assertMatches(states(State.values()));
    }
  }

  @Nested
  class ReadJob {
    @Test
    void returnsTheLatestRecordOfAJob() {
      JobSnapshot inFlight = a.withStatus(JobStatus.IN_FLIGHT);
      commit(new Mutation.PutJob(a));
      commit(rewrite(a, inFlight));

      assertThat(store.readJob(a.id())).isEqualTo(inFlight);
      restart();
      assertThat(store.readJob(a.id())).isEqualTo(inFlight);
    }

    @Test
    void returnsNullForAJobNeverStoredOrDeleted() {
      commit(new Mutation.PutJob(a), new Mutation.PutJob(b));
      commit(delete(a));

      assertThat(store.readJob(a.id())).isNull();
      assertThat(store.readJob(c.id())).isNull();
      assertThat(store.readJob(b.id())).isEqualTo(b);
    }

    @Test
    void roundTripsBudgetBindingsUniqueKeyAndBatch() {
      JobSnapshot job = new JobSnapshot(ids.next(T0), "digest", "q", 1, JobStatus.READY, T0, 0,
          null, null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null,
          List.of(new Binding("img", 3), new Binding("api:☃", 1),
              new Binding("per-account", "acct_☃", 2)),
          new UniqueKey("order-42", UniqueKey.Scope.ACTIVE),
          new BatchConfig("digest-7", ".count < 10", ".items + $new.items"));
      commit(new Mutation.PutJob(job));

      restart();

      assertThat(store.readJob(job.id())).isEqualTo(job);
      assertThat(scan()).containsExactly(job);
    }

    @Test
    void roundTripsTheErrorRecordCountOfAThrottledJob() {
      JobSnapshot throttled = new JobSnapshot(ids.next(T0), "call", "q", 1, JobStatus.READY, T0,
          1, null, null, null, T0, T0, Job.NONE, Job.NONE, null, List.of(new Binding("api", 1)),
          null, null, 3);
      commit(new Mutation.PutJob(throttled));

      restart();

      assertThat(store.readJob(throttled.id()).errorRecords()).isEqualTo(3);
      assertThat(scan()).containsExactly(throttled);
    }

    @Test
    void roundTripsSettledCosts() {
      JobSnapshot job = new JobSnapshot(ids.next(T0), "llm", "q", 1, JobStatus.COMPLETED, T0, 0,
          null, null, null, T0, Job.NONE, T0 + 5, T0 + 60_000, null,
          List.of(new Binding("tokens", 500, 1_234L), new Binding("pool", 1, 0L),
              new Binding("unsettled", 2)));
      commit(new Mutation.PutJob(job));

      restart();

      assertThat(store.readJob(job.id())).isEqualTo(job);
    }
  }

  @Nested
  class ScanJobsFromACursor {
    @BeforeEach
    void writeJobs() {
      writeFiveJobs();
    }

    @Test
    void walksEveryRecordAscendingOrDescendingFromNoCursor() {
      assertThat(drain(store.scanJobs(null, false))).containsExactly(a, b, c, d, e);
      assertThat(drain(store.scanJobs(null, true))).containsExactly(e, d, c, b, a);
    }

    @Test
    void startsStrictlyAfterAStoredCursorInTheWalkingDirection() {
      assertThat(scanIds(b.id(), false)).containsExactly(c.id(), d.id(), e.id());
      assertThat(scanIds(b.id(), true)).containsExactly(a.id());
      assertThat(scanIds(e.id(), false)).isEmpty();
      assertThat(scanIds(a.id(), true)).isEmpty();
    }

    @Test
    void startsAfterACursorThatIsNotStored() {
      assertThat(scanIds(id(25), false)).containsExactly(c.id(), d.id(), e.id());
      assertThat(scanIds(id(25), true)).containsExactly(b.id(), a.id());
      assertThat(scanIds(id(5), false)).containsExactly(a.id(), b.id(), c.id(), d.id(), e.id());
      assertThat(scanIds(id(5), true)).isEmpty();
      assertThat(scanIds(id(55), false)).isEmpty();
      assertThat(scanIds(id(55), true)).containsExactly(e.id(), d.id(), c.id(), b.id(), a.id());
    }

    @Test
    void ordersIdsAsUnsignedHighThenLowBits() {
      JobId loSign = new JobId(0, Long.MIN_VALUE);
      JobId loTop = new JobId(0, -1L);
      JobId hiMax = new JobId(Long.MAX_VALUE, 5);
      JobId hiSign = new JobId(Long.MIN_VALUE, 5);
      JobId top = new JobId(-1L, -1L);
      commit(new Mutation.PutJob(plainJob(top)), new Mutation.PutJob(plainJob(loTop)),
          new Mutation.PutJob(plainJob(hiSign)), new Mutation.PutJob(plainJob(loSign)),
          new Mutation.PutJob(plainJob(hiMax)));
      List<JobId> ordered = List.of(loSign, loTop, a.id(), b.id(), c.id(), d.id(), e.id(), hiMax,
          hiSign, top);

      assertThat(scanIds(null, false)).containsExactlyElementsOf(ordered);
      assertThat(scan()).extracting(JobSnapshot::id).containsExactlyElementsOf(ordered);
      assertThat(scanIds(new JobId(Long.MIN_VALUE, 0), false)).containsExactly(hiSign, top);
      assertThat(scanIds(new JobId(Long.MIN_VALUE, 0), true))
          .containsExactly(hiMax, e.id(), d.id(), c.id(), b.id(), a.id(), loTop, loSign);
    }

    @Test
    void endsWithoutANextRecord() {
      assertEndsAfterTheLastJob(store.scanJobs(d.id(), false));
      assertEndsAfterTheLastJob(store.scanJobs(queues("billing"), null, false));
    }

    private void assertEndsAfterTheLastJob(JobStore.JobScan scan) {
      try (scan) {
        assertThat(scan.next()).isEqualTo(e);
        assertThat(scan.hasNext()).isFalse();
        assertThatThrownBy(scan::next).isInstanceOf(NoSuchElementException.class);
      }
    }

    @Test
    void readsFromTheSnapshotTakenWhenTheScanOpened() {
      JobStore.JobScan scan = store.scanJobs(null, false);
      JobSnapshot later = job(id(60), "emails", "send", JobStatus.READY);
      commit(rewrite(c, c.withStatus(JobStatus.DEAD)), delete(a), new Mutation.PutJob(later));

      assertThat(drain(scan)).containsExactly(a, b, c, d, e);
      assertThat(drain(store.scanJobs(null, false)))
          .containsExactly(b, c.withStatus(JobStatus.DEAD), d, e, later);
    }

    @Test
    void staysUsableAfterPartlyReadScansAreClosed() {
      for (int i = 0; i < 10; i++) {
        try (JobStore.JobScan scan = store.scanJobs(null, i % 2 == 0)) {
          assertThat(scan.next()).isNotNull();
        }
      }
      JobSnapshot later = job(id(60), "emails", "send", JobStatus.READY);
      commit(new Mutation.PutJob(later));

      assertThat(drain(store.scanJobs(c.id(), false))).containsExactly(d, e, later);
    }

    @Test
    void findsNothingOnceEveryJobIsDeleted() {
      commit(delete(a), delete(b), delete(c), delete(d), delete(e));

      assertThat(scanIds(null, false)).isEmpty();
      assertThat(scanIds(null, true)).isEmpty();
      assertThat(scanIds(c.id(), false)).isEmpty();
      assertThat(scan()).isEmpty();
    }
  }

  /** Listings and counts through the secondary index: see {@link IndexQuery}, {@link IndexEntry}. */
  @Nested
  class ScanJobsByIndex {
    @BeforeEach
    void writeJobs() {
      writeFiveJobs();
    }

    @Test
    void listsAndCountsTheJobsOfAQueue() {
      assertMatches(queues("emails"), a, c, d);
      assertMatches(queues("reports"), b);
      assertMatches(queues("billing"), e);
    }

    @Test
    void listsAndCountsTheJobsOfAType() {
      assertMatches(types("send"), a, d, e);
      assertMatches(types("render"), b, c);
    }

    @Test
    void classesScheduledReadyAndInFlightJobsAsUnfinished() {
      assertMatches(states(State.UNFINISHED), a, b, d);
      assertMatches(states(State.COMPLETED), c);
      assertMatches(states(State.DEAD), e);
    }

    @Test
    void treatsSeveralValuesOfATermAsAUnion() {
      assertMatches(queues("emails", "billing"), a, c, d, e);
      assertMatches(types("send", "render"), a, b, c, d, e);
      assertMatches(states(State.COMPLETED, State.DEAD), c, e);
      assertMatches(queues("reports", "nowhere"), b);
    }

    @Test
    void treatsSeveralTermsAsAnIntersection() {
      assertMatches(new IndexQuery(Set.of("emails"), Set.of("send"), null), a, d);
      assertMatches(new IndexQuery(Set.of("emails"), null, Set.of(State.COMPLETED)), c);
      assertMatches(new IndexQuery(null, Set.of("render"), Set.of(State.UNFINISHED)), b);
      assertMatches(new IndexQuery(Set.of("emails", "billing"), Set.of("send"),
          Set.of(State.UNFINISHED, State.DEAD)), a, d, e);
    }

    @Test
    void findsNothingForUnknownValuesDisjointTermsOrAnEmptySetOfValues() {
      assertMatches(queues("nowhere"));
      assertMatches(types("nothing"));
      assertMatches(new IndexQuery(Set.of("billing"), Set.of("render"), null));
      assertMatches(new IndexQuery(Set.of(), null, null));
      assertMatches(new IndexQuery(Set.of("emails"), Set.of(), null));
    }

    @Test
    void startsStrictlyAfterTheCursorInTheWalkingDirection() {
      IndexQuery emails = queues("emails"); // a, c, d

      assertThat(scanIds(emails, c.id(), false)).containsExactly(d.id());
      assertThat(scanIds(emails, c.id(), true)).containsExactly(a.id());
      assertThat(scanIds(emails, b.id(), false)).containsExactly(c.id(), d.id());
      assertThat(scanIds(emails, b.id(), true)).containsExactly(a.id());
      assertThat(scanIds(emails, id(35), false)).containsExactly(d.id());
      assertThat(scanIds(emails, id(35), true)).containsExactly(c.id(), a.id());
      assertThat(scanIds(emails, d.id(), false)).isEmpty();
      assertThat(scanIds(emails, a.id(), true)).isEmpty();
    }

    @Test
    void followsAJobToItsNewQueueTypeAndStatusClass() {
      JobSnapshot moved = job(a.id(), "reports", "render", JobStatus.COMPLETED);
      commit(rewrite(a, moved));

      assertMatches(queues("emails"), c, d);
      assertMatches(queues("reports"), moved, b);
      assertMatches(types("send"), d, e);
      assertMatches(types("render"), moved, b, c);
      assertMatches(states(State.UNFINISHED), b, d);
      assertMatches(states(State.COMPLETED), moved, c);
    }

    @Test
    void listsTheLatestRecordOfAJobThatStaysInItsClass() {
      JobSnapshot scheduled = d.withStatus(JobStatus.SCHEDULED);
      commit(rewrite(d, scheduled));

      assertMatches(states(State.UNFINISHED), a, b, scheduled);
      assertMatches(queues("emails"), a, c, scheduled);
    }

    @Test
    void forgetsADeletedJob() {
      commit(delete(a));

      assertMatches(queues("emails"), c, d);
      assertMatches(types("send"), d, e);
      assertMatches(states(State.UNFINISHED), b, d);
    }

    @Test
    void keepsTheIndexAcrossARestart() {
      restart();

      assertMatches(queues("emails"), a, c, d);
      assertMatches(types("render"), b, c);
      assertMatches(new IndexQuery(Set.of("emails"), Set.of("send"), Set.of(State.UNFINISHED)),
          a, d);
    }

    @Test
    void readsFromTheSnapshotTakenWhenTheScanOpened() {
      JobStore.JobScan scan = store.scanJobs(queues("emails"), null, false);
      commit(rewrite(a, a.withNames("send", "billing")), delete(c));

      assertThat(drain(scan)).containsExactly(a, c, d);
      assertMatches(queues("emails"), d);
    }
  }

  @Nested
  class ReadPayload {
    @Test
    void returnsTheStoredBytesAfterReopening() {
      JobId id = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(id)),
          new Mutation.PutPayload(id, utf8("{\"to\":\"ada@example.com\"}")));

      restart();

      assertThat(store.readPayload(id)).asString(StandardCharsets.UTF_8)
          .isEqualTo("{\"to\":\"ada@example.com\"}");
    }

    @Test
    void returnsNullForAJobWithoutPayload() {
      assertThat(store.readPayload(ids.next(T0))).isNull();
    }
  }

  /** A record that holds its job's payload ({@link Mutation.PutJob#payloadInRecord}). */
  @Nested
  class PayloadInRecord {
    private final JobSnapshot job = plainJob(id(1));
    private final byte[] payload = utf8("{\"to\":\"ada@example.com\"}");

    private Mutation.PutJob create() {
      return new Mutation.PutJob(job, null, true, payload);
    }

    private Mutation.PutJob rewrite(JobSnapshot next, boolean payloadInRecord) {
      return new Mutation.PutJob(next, IndexEntry.of(job), payloadInRecord, null);
    }

    private String storedPayload() {
      byte[] stored = store.readPayload(job.id());
      return stored == null ? null : new String(stored, StandardCharsets.UTF_8);
    }

    @Test
    void isReadAsThePayloadAndGivenWithTheRecordOnlyByTheRecoveryScan() {
      commit(create());
      restart();

      assertThat(storedPayload()).isEqualTo("{\"to\":\"ada@example.com\"}");
      assertThat(scan()).singleElement()
          .satisfies(found -> assertThat(found.payload()).isEqualTo(payload))
          .satisfies(found -> assertThat(found.withPayload(null)).isEqualTo(job));
      assertThat(store.readJob(job.id())).isEqualTo(job);
      try (JobStore.JobScan scan = store.scanJobs((JobId) null, false)) {
        assertThat(scan.next()).isEqualTo(job);
      }
    }

    @Test
    void isCarriedOverByARewriteInALaterBatch() {
      commit(create());
      JobSnapshot failed = job.withStatus(JobStatus.SCHEDULED);
      commit(rewrite(failed, true));
      restart();

      assertThat(store.readJob(job.id())).isEqualTo(failed);
      assertThat(storedPayload()).isEqualTo("{\"to\":\"ada@example.com\"}");
      assertThat(scan()).singleElement()
          .satisfies(found -> assertThat(found.payload()).isEqualTo(payload));
    }

    @Test
    void isCarriedOverByARewriteInTheSameBatch() {
      JobSnapshot rebound = new JobSnapshot(job.id(), job.type(), job.queue(), job.priority(),
          job.status(), job.readyAtMs(), 0, null, null, null, Job.NONE, Job.NONE, Job.NONE,
          Job.NONE, null, List.of(new Binding("pool", 1)));
      commit(create(), rewrite(rebound, true), rewrite(rebound.withStatus(JobStatus.SCHEDULED),
          true));
      restart();

      assertThat(storedPayload()).isEqualTo("{\"to\":\"ada@example.com\"}");
      assertThat(store.readJob(job.id()).budgets()).containsExactly(new Binding("pool", 1));
    }

    @Test
    void isLostByARewriteThatDoesNotCarryItOver() {
      commit(create());
      commit(rewrite(job.withStatus(JobStatus.SCHEDULED), false));

      assertThat(storedPayload()).isNull();
    }

    @Test
    void failsTheCommitOfARewriteThatWouldCarryOverAPayloadTheRecordLacks() {
      commit(new Mutation.PutJob(job), new Mutation.PutPayload(job.id(), payload));

      assertThatThrownBy(() -> commit(rewrite(job.withStatus(JobStatus.SCHEDULED), true)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holds none");
      assertThat(store.readJob(job.id())).isEqualTo(job);
      assertThat(storedPayload()).isEqualTo("{\"to\":\"ada@example.com\"}");
    }

    @Test
    void isNotCarriedOverFromARecordDeletedEarlierInTheBatch() {
      commit(create());

      assertThatThrownBy(() -> commit(new Mutation.DeleteJob(job.id(), 0, IndexEntry.of(job),
          true), new Mutation.PutJob(job, null, true, null)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holds none");
      assertThat(storedPayload()).isEqualTo("{\"to\":\"ada@example.com\"}");
    }

    @Test
    void isCarriedOverForEachOfManyJobsRewrittenInOneBatch() {
      List<Mutation> creations = new ArrayList<>();
      List<Mutation> rewrites = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        JobSnapshot each = plainJob(id(100 + i));
        creations.add(new Mutation.PutJob(each, null, true, utf8("[" + i + "]")));
        rewrites.add(new Mutation.PutJob(each.withStatus(JobStatus.SCHEDULED),
            IndexEntry.of(each), true, null));
      }
      store.commit(new CommitBatch(creations, false));
      store.commit(new CommitBatch(rewrites, false));

      for (int i = 0; i < 100; i++) {
        assertThat(store.readPayload(id(100 + i))).asString(StandardCharsets.UTF_8)
            .isEqualTo("[" + i + "]");
      }
    }

    @Test
    void goesWithItsRecord() {
      commit(create());
      commit(new Mutation.DeleteJob(job.id(), 0, IndexEntry.of(job), true));
      restart();

      assertThat(storedPayload()).isNull();
      assertThat(scan()).isEmpty();
    }

    @Test
    void isNotWhereAPayloadOfItsOwnIs() {
      JobId other = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(other)), new Mutation.PutPayload(other, utf8("[]")));

      assertThat(scan()).singleElement()
          .satisfies(found -> assertThat(found.payload()).isNull());
      assertThat(store.readPayload(other)).asString(StandardCharsets.UTF_8).isEqualTo("[]");
    }
  }

  @Nested
  class ReadErrors {
    private JobId before;
    private JobId id;
    private JobId after;

    /** Five records for {@code id}, with neighbours on both sides that must never leak in. */
    @BeforeEach
    void storeErrors() {
      before = ids.next(T0);
      id = ids.next(T0);
      after = ids.next(T0);
      List<Mutation> mutations = new ArrayList<>();
      for (int attempt = 1; attempt <= 5; attempt++) {
        mutations.add(new Mutation.PutError(before, error(attempt)));
        mutations.add(new Mutation.PutError(id, error(attempt)));
        mutations.add(new Mutation.PutError(after, error(attempt)));
      }
      store.commit(new CommitBatch(mutations, true));
      restart();
    }

    @Test
    void listsEveryRecordInAscendingAttemptOrder() {
      List<ErrorRecord> records = store.readErrors(id, 0, false, 100);

      assertThat(records).containsExactly(error(1), error(2), error(3), error(4), error(5));
    }

    @Test
    void listsAscendingAfterTheGivenAttemptUpToTheLimit() {
      assertThat(attempts(store.readErrors(id, 2, false, 2))).containsExactly(3, 4);
      assertThat(attempts(store.readErrors(id, 4, false, 10))).containsExactly(5);
      assertThat(store.readErrors(id, 5, false, 10)).isEmpty();
    }

    @Test
    void listsEveryRecordNewestFirstWhenDescendingFromZero() {
      assertThat(attempts(store.readErrors(id, 0, true, 100))).containsExactly(5, 4, 3, 2, 1);
    }

    @Test
    void listsDescendingBeforeTheGivenAttemptUpToTheLimit() {
      assertThat(attempts(store.readErrors(id, 4, true, 2))).containsExactly(3, 2);
      assertThat(attempts(store.readErrors(id, 2, true, 10))).containsExactly(1);
      assertThat(store.readErrors(id, 1, true, 10)).isEmpty();
    }

    @Test
    void listsDescendingFromBeyondTheLastAttempt() {
      assertThat(attempts(store.readErrors(id, 100, true, 2))).containsExactly(5, 4);
    }

    @Test
    void findsNoRecordsForAJobWithoutFailures() {
      JobId between = new JobId(id.hi(), id.lo() + 1);

      assertThat(store.readErrors(between, 0, false, 10)).isEmpty();
      assertThat(store.readErrors(between, 0, true, 10)).isEmpty();
    }

    @Test
    void findsNothingAscendingAfterTheLargestAttemptNumber() {
      assertThat(store.readErrors(id, 0xFFFFFFFFL, false, 10)).isEmpty();
    }

    @Test
    void readsOneRecordByAttempt() {
      assertThat(store.readError(id, 3)).isEqualTo(error(3));
      assertThat(store.readError(id, 6)).isNull();
      assertThat(store.readError(id, 0)).isNull();
    }

    @Test
    void roundTripsTheOptionalTexts() {
      JobId failing = ids.next(T0 + 10);
      ErrorRecord full = new ErrorRecord(1, "smtp timeout ☃", "TimeoutError",
          "at Mailer.send(Mailer.java:42)\n\tat Worker.run", T0, T0 + 5);
      commit(new Mutation.PutError(failing, full));

      restart();

      assertThat(store.readError(failing, 1)).isEqualTo(full);
    }

    @Test
    void keepsThrottledRecordsBesideTheCountedFailureOfTheSameAttempt() {
      JobId throttledJob = ids.next(T0 + 10);
      ErrorRecord throttled = new ErrorRecord(1, 1, "429", null, null, T0, T0 + 1, true);
      ErrorRecord again = new ErrorRecord(2, 1, "429 again", null, null, T0 + 2, T0 + 3, true);
      ErrorRecord counted = new ErrorRecord(3, 1, "500", null, null, T0 + 4, T0 + 5, false);
      commit(new Mutation.PutError(throttledJob, throttled),
          new Mutation.PutError(throttledJob, again), new Mutation.PutError(throttledJob, counted));

      restart();

      assertThat(store.readErrors(throttledJob, 0, false, 10))
          .containsExactly(throttled, again, counted);
      assertThat(store.readErrors(throttledJob, 1, false, 1)).containsExactly(again);
      assertThat(store.readErrors(throttledJob, 3, true, 10)).containsExactly(again, throttled);
      assertThat(store.readError(throttledJob, 3)).isEqualTo(counted);
    }
  }

  @Nested
  class DeleteJob {
    @Test
    void removesTheJobItsPayloadAndItsErrorRecords() {
      JobId doomed = ids.next(T0);
      JobId kept = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(doomed)), new Mutation.PutPayload(doomed, utf8("{}")),
          new Mutation.PutError(doomed, error(1)), new Mutation.PutError(doomed, error(2)),
          new Mutation.PutJob(plainJob(kept)), new Mutation.PutPayload(kept, utf8("[]")),
          new Mutation.PutError(kept, error(1)));

      commit(new Mutation.DeleteJob(doomed, 2));
      restart();

      assertThat(scan()).extracting(JobSnapshot::id).containsExactly(kept);
      assertThat(store.readPayload(doomed)).isNull();
      assertThat(store.readErrors(doomed, 0, false, 10)).isEmpty();
      assertThat(store.readError(doomed, 1)).isNull();
      assertThat(store.readPayload(kept)).asString(StandardCharsets.UTF_8).isEqualTo("[]");
      assertThat(store.readErrors(kept, 0, false, 10)).containsExactly(error(1));
    }

    @Test
    void appliesTheMutationsOfOneBatchInOrder() {
      JobId diedAtOnce = ids.next(T0);
      JobId recreated = ids.next(T0);

      // A job that dies with zero retention writes its error record and deletes it in one turn.
      commit(new Mutation.PutJob(plainJob(diedAtOnce)), new Mutation.PutError(diedAtOnce,
          error(1)), new Mutation.DeleteJob(diedAtOnce, 1),
          new Mutation.DeleteJob(recreated, 0), new Mutation.PutJob(plainJob(recreated)));

      assertThat(scan()).extracting(JobSnapshot::id).containsExactly(recreated);
      assertThat(store.readError(diedAtOnce, 1)).isNull();
    }

    @Test
    void removesTheErrorRecordsOfThrottledFailuresToo() {
      JobId throttled = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(throttled)),
          new Mutation.PutError(throttled, new ErrorRecord(1, 1, "429", null, null, T0, T0, true)),
          new Mutation.PutError(throttled,
              new ErrorRecord(2, 1, "500", null, null, T0, T0, false)));

      commit(new Mutation.DeleteJob(throttled, 2));
      restart();

      assertThat(store.readErrors(throttled, 0, false, 10)).isEmpty();
    }
  }

  @Nested
  class Budgets {
    @Test
    void feedsEveryStoredBudget() {
      BudgetView images = new BudgetView("img",
          new BudgetPolicy(6, StrategyType.TIME_BASED, 60_000, 10L), T0, T0 + 5);
      BudgetView api = new BudgetView("api:☃",
          new BudgetPolicy(3, StrategyType.WHILE_IN_FLIGHT, 0, null), T0 + 1, T0 + 1);
      BudgetView drip = budget("drip", 1);
      commit(new Mutation.PutBudget(images), new Mutation.PutBudget(api),
          new Mutation.PutBudget(drip));

      assertThat(budgets()).containsExactlyInAnyOrder(images, api, drip);
      restart();
      assertThat(budgets()).containsExactlyInAnyOrder(images, api, drip);
    }

    @Test
    void keepsTheEndOfABudgetsPause() {
      BudgetView paused = new BudgetView("paused",
          new BudgetPolicy(2, StrategyType.WHILE_IN_FLIGHT, 0, null), T0, T0, T0 + 30_000);
      commit(new Mutation.PutBudget(paused));

      restart();
      assertThat(budgets()).containsExactly(paused);
    }

    @Test
    void keepsWhetherABudgetIsPartitioned() {
      BudgetView partitioned = new BudgetView("per-account",
          new BudgetPolicy(2, StrategyType.WHILE_IN_FLIGHT, 0, null), true, T0, T0, null);
      commit(new Mutation.PutBudget(partitioned));

      restart();
      assertThat(budgets()).containsExactly(partitioned);
    }

    @Test
    void keepsADurableBudgetAndItsTokenState() {
      BudgetView durable = new BudgetView("durable",
          new BudgetPolicy(10, StrategyType.TIME_BASED, 60_000, null, true), T0, T0);
      BucketState state = new BucketState(3, 42_000, 0, T0 + 7_000);
      commit(new Mutation.PutBudget(durable), new Mutation.PutBucketState("durable", state));
      commit(new Mutation.PutBucketState("durable", new BucketState(2, 0, 0, T0 + 8_000)));

      restart();
      assertThat(budgets()).containsExactly(durable);
      assertThat(bucketStates())
          .containsExactly(Map.entry("durable", new BucketState(2, 0, 0, T0 + 8_000)));
    }

    @Test
    void forgetsATokenStateDeletedAloneOrWithItsBudget() {
      BucketState state = new BucketState(3, 0, 0, T0);
      commit(new Mutation.PutBudget(budget("kept", 10)), new Mutation.PutBudget(budget("gone", 10)),
          new Mutation.PutBucketState("kept", state), new Mutation.PutBucketState("gone", state));
      commit(new Mutation.DeleteBucketState("kept"), new Mutation.DeleteBudget("gone"));

      restart();
      assertThat(budgets()).containsExactly(budget("kept", 10));
      assertThat(bucketStates()).isEmpty();
    }

    @Test
    void keepsOnlyTheLatestPolicyOfABudget() {
      commit(new Mutation.PutBudget(budget("img", 6)));
      commit(new Mutation.PutBudget(budget("img", 12)));

      assertThat(budgets()).containsExactly(budget("img", 12));
    }

    @Test
    void forgetsADeletedBudget() {
      commit(new Mutation.PutBudget(budget("img", 6)), new Mutation.PutBudget(budget("api", 3)));
      commit(new Mutation.DeleteBudget("img"));

      assertThat(budgets()).containsExactly(budget("api", 3));
      restart();
      assertThat(budgets()).containsExactly(budget("api", 3));
    }
  }

  @Nested
  class Pointers {
    @Test
    void feedsThePointersOfOneKindOnly() {
      commit(new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "order-42", a.id()),
          new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "order-4", b.id()),
          new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "☃", c.id()),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "order-42", d.id()));

      restart();

      assertThat(pointers(Mutation.Pointer.UNIQUE_CLAIM))
          .isEqualTo(Map.of("order-42", a.id(), "order-4", b.id(), "☃", c.id()));
      assertThat(pointers(Mutation.Pointer.OPEN_BATCH)).isEqualTo(Map.of("order-42", d.id()));
    }

    @Test
    void pointsAKeyAtTheJobOfItsLatestPut() {
      commit(new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "digest", a.id()));
      commit(new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "digest", b.id()));

      assertThat(pointers(Mutation.Pointer.OPEN_BATCH)).isEqualTo(Map.of("digest", b.id()));
    }

    @Test
    void deletesThePointerOfOneKindOnly() {
      commit(new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "k", a.id()),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "k", b.id()));
      commit(new Mutation.DeletePointer(Mutation.Pointer.UNIQUE_CLAIM, "k"));

      restart();

      assertThat(pointers(Mutation.Pointer.UNIQUE_CLAIM)).isEmpty();
      assertThat(pointers(Mutation.Pointer.OPEN_BATCH)).isEqualTo(Map.of("k", b.id()));
    }
  }

  @Nested
  class CronGroups {
    @Test
    void feedsEveryGroupInNameByteOrder() {
      // UTF-8 byte order, which puts U+FB01 before U+1F600 where String order would not.
      for (String name : List.of("b", "\ud83d\ude00", "a", "Z", "\ufb01", "ab", "\u00e9")) {
        commit(new Mutation.PutCronGroup(name, utf8(name)));
      }

      restart();

      assertThat(cronGroups().keySet())
          .containsExactly("Z", "a", "ab", "b", "\u00e9", "\ufb01", "\ud83d\ude00");
    }

    @Test
    void storesTheRecordBytesAsGiven() {
      commit(new Mutation.PutCronGroup("nightly", new byte[] {0, 1, (byte) 0x80, (byte) 0xff, 0}));

      restart();

      assertThat(cronGroups()).isEqualTo(Map.of("nightly", "000180ff00"));
    }

    @Test
    void keepsOnlyTheLatestRecordOfAGroup() {
      commit(new Mutation.PutCronGroup("nightly", new byte[] {1}));
      commit(new Mutation.PutCronGroup("nightly", new byte[] {2}));

      assertThat(cronGroups()).isEqualTo(Map.of("nightly", "02"));
    }

    @Test
    void forgetsADeletedGroup() {
      commit(new Mutation.PutCronGroup("nightly", new byte[] {1}),
          new Mutation.PutCronGroup("hourly", new byte[] {2}));
      commit(new Mutation.DeleteCronGroup("nightly"));

      restart();

      assertThat(cronGroups()).isEqualTo(Map.of("hourly", "02"));
    }
  }

  /**
   * A batch is all or nothing. A PutJob without a job cannot be written by any store, so it
   * stands for any failure inside a commit.
   */
  @Nested
  class Atomicity {
    private final JobSnapshot kept = plainJob(id(1));
    private final JobSnapshot doomed = plainJob(id(2));
    private final JobSnapshot fresh = plainJob(id(3));
    private final Contents committed = new Contents(List.of(kept, doomed),
        Map.of(kept.id(), "{\"k\":1}", doomed.id(), "{}"),
        Map.of(kept.id(), List.of(error(1)), doomed.id(), List.of(error(1))),
        List.of(budget("img", 6)), Map.of("order-42", kept.id()), Map.of("digest", doomed.id()),
        Map.of("nightly", "01"));

    @BeforeEach
    void storeOneRecordOfEachKind() {
      commit(new Mutation.PutJob(kept), new Mutation.PutPayload(kept.id(), utf8("{\"k\":1}")),
          new Mutation.PutError(kept.id(), error(1)), new Mutation.PutJob(doomed),
          new Mutation.PutPayload(doomed.id(), utf8("{}")),
          new Mutation.PutError(doomed.id(), error(1)),
          new Mutation.PutBudget(budget("img", 6)),
          new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "order-42", kept.id()),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "digest", doomed.id()),
          new Mutation.PutCronGroup("nightly", new byte[] {1}));
    }

    @Test
    void leavesNothingOfABatchThatFails() {
      List<Mutation> failing = List.of(new Mutation.PutJob(fresh),
          new Mutation.PutPayload(fresh.id(), utf8("[]")),
          new Mutation.PutError(fresh.id(), error(1)),
          rewrite(kept, kept.withStatus(JobStatus.COMPLETED)),
          new Mutation.PutError(kept.id(), error(2)),
          new Mutation.DeleteJob(doomed.id(), 1, IndexEntry.of(doomed)),
          new Mutation.PutBudget(budget("img", 12)), new Mutation.PutBudget(budget("api", 3)),
          new Mutation.DeletePointer(Mutation.Pointer.UNIQUE_CLAIM, "order-42"),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "digest", fresh.id()),
          new Mutation.DeleteCronGroup("nightly"),
          new Mutation.PutCronGroup("hourly", new byte[] {2}),
          new Mutation.PutJob(null));

      assertThatThrownBy(() -> store.commit(new CommitBatch(failing, true)))
          .isInstanceOf(RuntimeException.class);

      assertThat(contents(kept.id(), doomed.id(), fresh.id())).isEqualTo(committed);
      assertMatches(states(State.UNFINISHED), kept, doomed);
      assertMatches(states(State.COMPLETED));
      restart();
      assertThat(contents(kept.id(), doomed.id(), fresh.id())).isEqualTo(committed);
      assertMatches(states(State.UNFINISHED), kept, doomed);
    }

    @Test
    void commitsTheNextBatchAfterOneThatFailed() {
      assertThatThrownBy(() -> commit(new Mutation.PutJob(fresh), new Mutation.PutJob(null)))
          .isInstanceOf(RuntimeException.class);

      commit(new Mutation.PutJob(fresh), new Mutation.PutPayload(fresh.id(), utf8("[]")));

      assertThat(scan()).containsExactly(kept, doomed, fresh);
      assertThat(store.readPayload(fresh.id())).asString(StandardCharsets.UTF_8).isEqualTo("[]");
    }
  }

  @Nested
  class Recovery {
    @Test
    void seesExactlyWhatWasCommittedAfterAReopen() {
      JobSnapshot kept = plainJob(id(1));
      JobSnapshot moved = plainJob(id(2));
      JobSnapshot deleted = plainJob(id(3));
      JobSnapshot movedOn = job(moved.id(), "reports", "render", JobStatus.DEAD);
      store.commit(new CommitBatch(List.of(new Mutation.PutJob(kept),
          new Mutation.PutPayload(kept.id(), utf8("{\"k\":1}")),
          new Mutation.PutError(kept.id(), error(1)), new Mutation.PutJob(moved),
          new Mutation.PutPayload(moved.id(), utf8("{\"m\":2}")), new Mutation.PutJob(deleted),
          new Mutation.PutPayload(deleted.id(), utf8("{}")),
          new Mutation.PutError(deleted.id(), error(1)),
          new Mutation.PutBudget(budget("img", 6)), new Mutation.PutBudget(budget("api", 3)),
          new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "u1", kept.id()),
          new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, "u2", deleted.id()),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "b1", moved.id()),
          new Mutation.PutCronGroup("nightly", new byte[] {1}),
          new Mutation.PutCronGroup("hourly", new byte[] {2})), true));
      commit(rewrite(moved, movedOn), new Mutation.PutError(moved.id(), error(1)),
          new Mutation.DeleteJob(deleted.id(), 1, IndexEntry.of(deleted)),
          new Mutation.PutBudget(budget("img", 12)), new Mutation.DeleteBudget("api"),
          new Mutation.DeletePointer(Mutation.Pointer.UNIQUE_CLAIM, "u2"),
          new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, "b1", kept.id()),
          new Mutation.PutCronGroup("nightly", new byte[] {3}),
          new Mutation.DeleteCronGroup("hourly"));
      Contents committed = new Contents(List.of(kept, movedOn),
          Map.of(kept.id(), "{\"k\":1}", moved.id(), "{\"m\":2}"),
          Map.of(kept.id(), List.of(error(1)), moved.id(), List.of(error(1))),
          List.of(budget("img", 12)), Map.of("u1", kept.id()), Map.of("b1", kept.id()),
          Map.of("nightly", "03"));
      assertThat(contents(kept.id(), moved.id(), deleted.id())).isEqualTo(committed);

      restart();

      assertThat(contents(kept.id(), moved.id(), deleted.id())).isEqualTo(committed);
      assertThat(store.readJob(deleted.id())).isNull();
      assertMatches(queues("emails"), kept);
      assertMatches(queues("reports"), movedOn);
      assertMatches(states(State.UNFINISHED), kept);
      assertMatches(states(State.DEAD), movedOn);
    }
  }

  @Nested
  class Close {
    @Test
    void failsEveryLaterUseWithAStorageException() {
      JobId id = id(1);
      commit(new Mutation.PutJob(plainJob(id)));
      store.close();

      IndexQuery emails = queues("emails");
      Map<String, ThrowingCallable> uses = new LinkedHashMap<>();
      uses.put("commit", () -> commit(new Mutation.PutJob(plainJob(id(2)))));
      uses.put("readJob", () -> store.readJob(id));
      uses.put("readPayload", () -> store.readPayload(id));
      uses.put("readErrors", () -> store.readErrors(id, 0, false, 10));
      uses.put("readError", () -> store.readError(id, 1));
      uses.put("scanJobs", () -> store.scanJobs(job -> { }));
      uses.put("scanJobs from a cursor", () -> store.scanJobs(null, false));
      uses.put("scanJobs by index", () -> store.scanJobs(emails, null, false));
      uses.put("countJobs", () -> store.countJobs(emails));
      uses.put("scanBudgets", () -> store.scanBudgets(budget -> { }));
      uses.put("scanBucketStates", () -> store.scanBucketStates((key, state) -> { }));
      for (Mutation.Pointer kind : Mutation.Pointer.values()) {
        uses.put("scanPointers " + kind, () -> store.scanPointers(kind, (key, job) -> { }));
      }
      uses.put("scanCronGroups", () -> store.scanCronGroups((name, record) -> { }));
      uses.forEach((use, call) ->
          assertThatThrownBy(call).as(use).isInstanceOf(StorageException.class));
    }

    @Test
    void closesASecondTimeWithoutFailing() {
      store.close();

      assertThatCode(store::close).doesNotThrowAnyException();
    }
  }

  @Nested
  class WithTheEngine {
    @Test
    void recoversWhatTheEngineCommitted() {
      EngineHarness h = EngineHarness.create();
      JobSnapshot retried = h.enqueue(EngineHarness.job("a").retryLimit(5));
      JobSnapshot waiting = h.enqueue("b");
      h.openWorker("a", 1);
      h.dispatch();
      h.fail(retried.id(), EngineHarness.failure("timeout"));
      store.commit(new CommitBatch(h.writtenMutations(), true));
      restart();

      Engine restarted = new Engine(EngineConfig.defaults());
      store.scanJobs(job -> restarted.recover(job, h.nowMs()));

      JobSnapshot recovered = restarted.get(retried.id(), h.nowMs());
      assertThat(recovered).isEqualTo(h.get(retried.id()));
      assertThat(recovered.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(restarted.nextDeadlineMs()).isEqualTo(recovered.readyAtMs());
      assertThat(restarted.get(waiting.id(), h.nowMs()).status()).isEqualTo(JobStatus.READY);
      assertThat(store.readPayload(waiting.id())).asString(StandardCharsets.UTF_8).isEqualTo("{}");
      assertThat(store.readErrors(retried.id(), 0, false, 10))
          .extracting(ErrorRecord::message)
          .containsExactly("timeout");
    }
  }
}
