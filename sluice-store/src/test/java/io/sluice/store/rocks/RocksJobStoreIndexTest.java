package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.IndexEntry.State;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.JobStore.JobScan;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The secondary index of the RocksDB job store ({@code index} column family), on a real database
 * in a temporary directory: scans and counts by queue, type and state, their maintenance through
 * {@link Mutation.PutJob#previous()} and {@link Mutation.DeleteJob#indexed()}, restarts, the
 * rebuild of an index-less data directory, and a seeded randomized comparison against a model.
 */
class RocksJobStoreIndexTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final long HI = 7;
  private static final byte[] VERSION_KEY = "index-version".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dataDir;

  private RocksJobStore store;
  /** What every live job is indexed under, as the engine would remember it. */
  private final TreeMap<JobId, IndexEntry> indexed = new TreeMap<>();
  /** The latest record of every live job. */
  private final Map<JobId, JobSnapshot> records = new HashMap<>();
  private final List<Mutation> pending = new ArrayList<>();

  @BeforeEach
  void open() {
    store = newStore();
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  private RocksJobStore newStore() {
    return new RocksJobStore(new StoreConfig(dataDir, 8L << 20));
  }

  private void reopen() {
    store.close();
    store = null;
    store = newStore();
  }

  // ---------------------------------------------------------------- building and writing jobs

  private static JobId id(long lo) {
    return new JobId(HI, lo);
  }

  private static JobSnapshot job(JobId id, String queue, String type, JobStatus status) {
    return new JobSnapshot(id, type, queue, 0, status, T0, 0, null, null, null, Job.NONE,
        Job.NONE, Job.NONE, Job.NONE, null);
  }

  /** Queues a PutJob naming the entry the job was indexed under until now (null if new). */
  private JobSnapshot put(JobSnapshot job) {
    IndexEntry previous = indexed.get(job.id());
    pending.add(new Mutation.PutJob(job, previous));
    indexed.put(job.id(), IndexEntry.of(job, previous));
    records.put(job.id(), job);
    return job;
  }

  private JobSnapshot put(JobId id, String queue, String type, JobStatus status) {
    return put(job(id, queue, type, status));
  }

  /** Queues a DeleteJob naming what the job is indexed under. */
  private void delete(JobId id) {
    pending.add(new Mutation.DeleteJob(id, 0, indexed.remove(id)));
    records.remove(id);
  }

  private void commit() {
    store.commit(new CommitBatch(List.copyOf(pending), false));
    pending.clear();
  }

  // ---------------------------------------------------------------- queries

  @SafeVarargs
  private static <T> Set<T> set(T... values) {
    return new LinkedHashSet<>(Arrays.asList(values));
  }

  private static IndexQuery queue(String... queues) {
    return new IndexQuery(set(queues), null, null);
  }

  private static IndexQuery type(String... types) {
    return new IndexQuery(null, set(types), null);
  }

  private static IndexQuery state(State... states) {
    return new IndexQuery(null, null, set(states));
  }

  /** The records of a scan, every one checked against the latest written record. */
  private List<JobSnapshot> scanRecords(IndexQuery query, JobId after, boolean descending) {
    List<JobSnapshot> found = new ArrayList<>();
    try (JobScan scan = store.scanJobs(query, after, descending)) {
      while (scan.hasNext()) {
        found.add(scan.next());
      }
      assertThat(scan.hasNext()).isFalse();
      assertThatThrownBy(scan::next).isInstanceOf(NoSuchElementException.class);
    }
    return found;
  }

  private List<JobId> scan(IndexQuery query, JobId after, boolean descending) {
    List<JobSnapshot> found = scanRecords(query, after, descending);
    for (JobSnapshot job : found) {
      if (!job.equals(records.get(job.id()))) { // AssertJ only on failure: it is slow per record
        assertThat(job).as("record of %s", job.id()).isEqualTo(records.get(job.id()));
      }
    }
    return found.stream().map(JobSnapshot::id).toList();
  }

  private List<JobId> ascending(IndexQuery query) {
    return scan(query, null, false);
  }

  /**
   * Checks a query both ways without {@code after}, and that its count is the number of results.
   */
  private void assertMatches(IndexQuery query, JobId... expectedAscending) {
    List<JobId> expected = List.of(expectedAscending);
    List<JobId> reversed = new ArrayList<>(expected);
    Collections.reverse(reversed);
    assertThat(scan(query, null, false)).as("ascending %s", query).containsExactlyElementsOf(
        expected);
    assertThat(scan(query, null, true)).as("descending %s", query).containsExactlyElementsOf(
        reversed);
    assertThat(store.countJobs(query)).as("count %s", query).isEqualTo(expected.size());
  }

  // ---------------------------------------------------------------- raw access to the database

  private interface RawAction {
    void run(RocksDB db, Map<String, ColumnFamilyHandle> families) throws RocksDBException;
  }

  /** Opens the store's directory with RocksDB directly (the store must be closed). */
  private void withRawDb(RawAction action) throws RocksDBException {
    List<byte[]> names;
    try (Options options = new Options()) {
      names = RocksDB.listColumnFamilies(options, dataDir.toString());
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (byte[] name : names) {
      descriptors.add(new ColumnFamilyDescriptor(name));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.open(options, dataDir.toString(), descriptors, handles)) {
      Map<String, ColumnFamilyHandle> families = new HashMap<>();
      for (int i = 0; i < names.size(); i++) {
        families.put(new String(names.get(i), StandardCharsets.UTF_8), handles.get(i));
      }
      try {
        action.run(db, families);
      } finally {
        handles.forEach(ColumnFamilyHandle::close);
      }
    }
  }

  private static List<byte[]> keysOf(RocksDB db, ColumnFamilyHandle family) {
    List<byte[]> keys = new ArrayList<>();
    try (RocksIterator it = db.newIterator(family)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        keys.add(it.key());
      }
    }
    return keys;
  }

  private static String hex(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    for (byte b : bytes) {
      text.append(String.format("%02x", b));
    }
    return text.toString();
  }

  /**
   * The hex of every key the stored index must hold for these entries: three per finished job,
   * none for an unfinished one (those are held in memory).
   */
  private static Set<String> expectedIndexKeys(Map<JobId, IndexEntry> entries) {
    Set<String> keys = new TreeSet<>();
    entries.forEach((id, entry) -> {
      if (entry.state() == State.UNFINISHED) {
        return;
      }
      byte[] jobKey = Keys.job(id);
      keys.add(hex(IndexKeys.key(IndexKeys.prefix(IndexKeys.QUEUE, entry.queue()), jobKey)));
      keys.add(hex(IndexKeys.key(IndexKeys.prefix(IndexKeys.TYPE, entry.type()), jobKey)));
      keys.add(hex(IndexKeys.key(IndexWrites.statePrefix(entry.state()), jobKey)));
    });
    return keys;
  }

  private Set<String> storedIndexKeys() throws RocksDBException {
    Set<String> keys = new TreeSet<>();
    withRawDb((db, families) ->
        keysOf(db, families.get("index")).forEach(key -> keys.add(hex(key))));
    return keys;
  }

  // ================================================================= tests

  /** Ten jobs, ids 10, 20, ..., 100 (lo) so that ids between and around them exist. */
  @Nested
  class NewJobs {
    final JobId j0 = id(10);
    final JobId j1 = id(20);
    final JobId j2 = id(30);
    final JobId j3 = id(40);
    final JobId j4 = id(50);
    final JobId j5 = id(60);
    final JobId j6 = id(70);
    final JobId j7 = id(80);
    final JobId j8 = id(90);
    final JobId j9 = id(100);

    @BeforeEach
    void writeJobs() {
      // Committed out of id order, over two batches.
      put(j9, "emails", "charge", JobStatus.DEAD);
      put(j3, "emails", "send", JobStatus.IN_FLIGHT);
      put(j0, "emails", "send", JobStatus.READY);
      put(j1, "reports", "render", JobStatus.SCHEDULED);
      put(j2, "emails", "render", JobStatus.COMPLETED);
      commit();
      put(j4, "reports", "send", JobStatus.DEAD);
      put(j5, "billing", "charge", JobStatus.READY);
      put(j7, "reports", "render", JobStatus.DEAD);
      put(j6, "emails", "send", JobStatus.COMPLETED);
      put(j8, "billing", "send", JobStatus.SCHEDULED);
      commit();
    }

    @Test
    void scansOneQueue() {
      assertMatches(queue("emails"), j0, j2, j3, j6, j9);
      assertMatches(queue("reports"), j1, j4, j7);
      assertMatches(queue("billing"), j5, j8);
    }

    @Test
    void scansOneType() {
      assertMatches(type("send"), j0, j3, j4, j6, j8);
      assertMatches(type("render"), j1, j2, j7);
      assertMatches(type("charge"), j5, j9);
    }

    @Test
    void scansOneStateWithScheduledReadyAndInFlightAsUnfinished() {
      assertMatches(state(State.UNFINISHED), j0, j1, j3, j5, j8);
      assertMatches(state(State.COMPLETED), j2, j6);
      assertMatches(state(State.DEAD), j4, j7, j9);
    }

    @Test
    void returnsTheStoredRecords() {
      List<JobSnapshot> found = scanRecords(queue("billing"), null, false);

      assertThat(found).containsExactly(records.get(j5), records.get(j8));
      assertThat(found.get(1).status()).isEqualTo(JobStatus.SCHEDULED);
    }

    @Test
    void scansSeveralValuesOfOneTermAsAUnion() {
      assertMatches(queue("emails", "billing"), j0, j2, j3, j5, j6, j8, j9);
      assertMatches(queue("reports", "billing", "emails"), j0, j1, j2, j3, j4, j5, j6, j7, j8, j9);
      assertMatches(type("render", "charge"), j1, j2, j5, j7, j9);
      assertMatches(state(State.COMPLETED, State.DEAD), j2, j4, j6, j7, j9);
      assertMatches(state(State.values()), j0, j1, j2, j3, j4, j5, j6, j7, j8, j9);
      assertMatches(queue("billing", "nowhere"), j5, j8);
    }

    @Test
    void scansSeveralTermsAsAnIntersection() {
      assertMatches(new IndexQuery(set("emails"), set("send"), null), j0, j3, j6);
      assertMatches(new IndexQuery(set("emails"), set("send"), set(State.UNFINISHED)), j0, j3);
      assertMatches(new IndexQuery(set("emails"), null, set(State.DEAD)), j9);
      assertMatches(new IndexQuery(null, set("send"), set(State.COMPLETED, State.DEAD)), j4, j6);
      assertMatches(new IndexQuery(set("emails", "reports"), set("render", "charge"),
          set(State.DEAD, State.COMPLETED)), j2, j7, j9);
      assertMatches(new IndexQuery(set("billing"), set("charge", "send"),
          set(State.UNFINISHED)), j5, j8);
    }

    @Test
    void findsNothingForUnknownValuesOrDisjointTerms() {
      assertMatches(queue("nowhere"));
      assertMatches(type("nothing"));
      assertMatches(new IndexQuery(set("billing"), null, set(State.DEAD)));
      assertMatches(new IndexQuery(set("reports"), set("charge"), null));
      assertMatches(new IndexQuery(set("emails"), set("nothing"), set(State.UNFINISHED)));
      assertThat(scan(queue("nowhere"), j3, false)).isEmpty();
      assertThat(scan(new IndexQuery(set("billing"), null, set(State.DEAD)), j3, true)).isEmpty();
    }

    @Test
    void findsNothingForATermWithAnEmptySetOfValues() {
      assertMatches(new IndexQuery(Set.of(), null, null));
      assertMatches(new IndexQuery(set("emails"), Set.of(), null));
      assertMatches(new IndexQuery(null, set("send"), EnumSet.noneOf(State.class)));
    }

    @Test
    void startsAfterAnIdInTheResult() {
      IndexQuery emails = queue("emails"); // j0 j2 j3 j6 j9

      assertThat(scan(emails, j2, false)).containsExactly(j3, j6, j9);
      assertThat(scan(emails, j2, true)).containsExactly(j0);
      assertThat(scan(emails, j6, true)).containsExactly(j3, j2, j0);
      assertThat(scan(emails, j0, false)).containsExactly(j2, j3, j6, j9);
      assertThat(scan(emails, j9, true)).containsExactly(j6, j3, j2, j0);
    }

    @Test
    void endsEmptyAfterTheLastResultInTheWalkingDirection() {
      IndexQuery emails = queue("emails");

      assertThat(scan(emails, j9, false)).isEmpty();
      assertThat(scan(emails, j0, true)).isEmpty();
    }

    @Test
    void startsAfterAStoredIdOutsideTheResult() {
      IndexQuery emails = queue("emails"); // j0 j2 j3 j6 j9

      assertThat(scan(emails, j1, false)).containsExactly(j2, j3, j6, j9);
      assertThat(scan(emails, j1, true)).containsExactly(j0);
      assertThat(scan(emails, j8, false)).containsExactly(j9);
      assertThat(scan(emails, j8, true)).containsExactly(j6, j3, j2, j0);
    }

    @Test
    void startsAfterAnIdThatIsNotStoredAtAll() {
      IndexQuery emails = queue("emails"); // j0 j2 j3 j6 j9
      JobId between4And5 = id(55);

      assertThat(scan(emails, between4And5, false)).containsExactly(j6, j9);
      assertThat(scan(emails, between4And5, true)).containsExactly(j3, j2, j0);
      assertThat(scan(emails, id(31), false)).containsExactly(j3, j6, j9);
      assertThat(scan(emails, id(29), true)).containsExactly(j0);
    }

    @Test
    void startsAfterAnIdBeyondTheLastOrBeforeTheFirst() {
      IndexQuery emails = queue("emails");
      List<JobId> all = List.of(j0, j2, j3, j6, j9);
      List<JobId> allReversed = List.of(j9, j6, j3, j2, j0);

      for (JobId beyond : List.of(id(101), id(Long.MAX_VALUE), id(-1L), new JobId(HI + 1, 0),
          new JobId(-1L, -1L))) {
        assertThat(scan(emails, beyond, false)).as("after %s", beyond).isEmpty();
        assertThat(scan(emails, beyond, true)).as("before %s", beyond)
            .containsExactlyElementsOf(allReversed);
      }
      for (JobId before : List.of(id(9), id(0), new JobId(HI - 1, -1L), new JobId(0, 0))) {
        assertThat(scan(emails, before, false)).as("after %s", before)
            .containsExactlyElementsOf(all);
        assertThat(scan(emails, before, true)).as("before %s", before).isEmpty();
      }
    }

    @Test
    void startsAfterAnIdInAUnion() {
      IndexQuery emailsOrBilling = queue("emails", "billing"); // j0 j2 j3 j5 j6 j8 j9

      assertThat(scan(emailsOrBilling, j5, false)).containsExactly(j6, j8, j9);
      assertThat(scan(emailsOrBilling, j5, true)).containsExactly(j3, j2, j0);
      assertThat(scan(emailsOrBilling, j4, false)).containsExactly(j5, j6, j8, j9);
      assertThat(scan(emailsOrBilling, j4, true)).containsExactly(j3, j2, j0);
      assertThat(scan(emailsOrBilling, id(95), false)).containsExactly(j9);
      assertThat(scan(emailsOrBilling, id(95), true)).containsExactly(j8, j6, j5, j3, j2, j0);
      assertThat(scan(emailsOrBilling, id(1000), false)).isEmpty();
    }

    @Test
    void startsAfterAnIdInAnIntersection() {
      IndexQuery emailsSend = new IndexQuery(set("emails"), set("send"), null); // j0 j3 j6

      assertThat(scan(emailsSend, j3, false)).containsExactly(j6);
      assertThat(scan(emailsSend, j3, true)).containsExactly(j0);
      assertThat(scan(emailsSend, j4, false)).containsExactly(j6);
      assertThat(scan(emailsSend, j4, true)).containsExactly(j3, j0);
      assertThat(scan(emailsSend, j2, false)).containsExactly(j3, j6);
      assertThat(scan(emailsSend, j2, true)).containsExactly(j0);
      assertThat(scan(emailsSend, id(75), false)).isEmpty();
      assertThat(scan(emailsSend, id(75), true)).containsExactly(j6, j3, j0);
      assertThat(scan(emailsSend, id(5), false)).containsExactly(j0, j3, j6);

      IndexQuery three = new IndexQuery(set("emails", "reports"), set("render", "charge"),
          set(State.DEAD, State.COMPLETED)); // j2 j7 j9
      assertThat(scan(three, j2, false)).containsExactly(j7, j9);
      assertThat(scan(three, j7, true)).containsExactly(j2);
      assertThat(scan(three, j8, true)).containsExactly(j7, j2);
      assertThat(scan(three, j3, false)).containsExactly(j7, j9);
    }

    @Test
    void readsFinishedJobsFromTheSnapshotTakenWhenTheScanOpened() {
      try (JobScan scan = store.scanJobs(state(State.DEAD), null, false)) {
        put(records.get(j4).withStatus(JobStatus.COMPLETED));
        put(records.get(j7).withNames("render", "billing"));
        delete(j9);
        commit();

        List<JobSnapshot> found = new ArrayList<>();
        scan.forEachRemaining(found::add);
        assertThat(found).extracting(JobSnapshot::id).containsExactly(j4, j7, j9);
        assertThat(found.get(0).status()).isEqualTo(JobStatus.DEAD);
        assertThat(found.get(1).queue()).isEqualTo("reports");
      }
      assertMatches(state(State.DEAD), j7);
      assertMatches(queue("billing"), j5, j7, j8);
    }

    /**
     * The unfinished jobs' part of the index is live, their records come from the snapshot: a
     * job left alone is always listed, one added since is not, and one that changed is listed as
     * the snapshot had it or not at all.
     */
    @Test
    void listsUnfinishedJobsThatChangeDuringAScanAsTheSnapshotHadThemOrNotAtAll() {
      for (boolean descending : List.of(false, true)) {
        Map<JobId, JobSnapshot> before = new HashMap<>(records);
        JobId late = id(65 + (descending ? 1 : 0));
        try (JobScan scan = store.scanJobs(new IndexQuery(set("billing", "emails"), null,
            set(State.UNFINISHED)), null, descending)) {
          put(records.get(j5).withNames("charge", "reports"));
          put(records.get(j0).withStatus(JobStatus.COMPLETED));
          put(late, "billing", "send", JobStatus.READY);
          commit();

          List<JobSnapshot> found = new ArrayList<>();
          scan.forEachRemaining(found::add);
          assertThat(found).extracting(JobSnapshot::id).contains(j3, j8).doesNotContain(late)
              .isSubsetOf(j0, j3, j5, j8).doesNotHaveDuplicates();
          for (JobSnapshot job : found) {
            assertThat(job).isEqualTo(before.get(job.id()));
          }
        }
        put(records.get(j5).withNames("charge", "billing"));
        put(records.get(j0).withStatus(JobStatus.READY));
        delete(late);
        commit();
      }
      assertMatches(new IndexQuery(set("billing", "emails"), null, set(State.UNFINISHED)),
          j0, j3, j5, j8);
    }

    @Test
    void closesAPartlyReadScan() {
      for (int i = 0; i < 50; i++) {
        try (JobScan scan = store.scanJobs(queue("emails", "reports"), null, i % 2 == 0)) {
          assertThat(scan.next()).isNotNull();
        }
      }
      assertMatches(queue("reports"), j1, j4, j7);
    }

    /** The engine's recovery reads every record at start-up; the index is filled on the way. */
    @Test
    void fillsTheIndexFromTheScanOfEveryRecordAfterARestart() {
      reopen();
      List<JobId> scanned = new ArrayList<>();
      store.scanJobs(job -> scanned.add(job.id()));
      assertThat(scanned).hasSize(10);

      put(records.get(j1).withStatus(JobStatus.COMPLETED));
      put(id(110), "billing", "send", JobStatus.READY);
      commit();

      assertMatches(state(State.UNFINISHED), j0, j3, j5, j8, id(110));
      assertMatches(queue("billing"), j5, j8, id(110));
      assertMatches(queue("reports"), j1, j4, j7);
    }

    @Test
    void keepsTheIndexAcrossARestart() {
      reopen();

      assertMatches(queue("emails"), j0, j2, j3, j6, j9);
      assertMatches(type("render", "charge"), j1, j2, j5, j7, j9);
      assertMatches(new IndexQuery(set("emails"), set("send"), set(State.UNFINISHED)), j0, j3);
      assertThat(scan(queue("emails", "billing"), j5, true)).containsExactly(j3, j2, j0);

      put(records.get(j0).withStatus(JobStatus.COMPLETED));
      delete(j2);
      commit();
      reopen();

      assertMatches(state(State.COMPLETED), j0, j6);
      assertMatches(queue("emails"), j0, j3, j6, j9);
    }
  }

  @Nested
  class Moves {
    final JobId a = id(1);
    final JobId b = id(2);
    final JobId c = id(3);

    @BeforeEach
    void writeJobs() {
      put(a, "emails", "send", JobStatus.READY);
      put(b, "emails", "send", JobStatus.READY);
      put(c, "reports", "render", JobStatus.SCHEDULED);
      commit();
    }

    @Test
    void movesAJobToAnotherQueue() {
      put(records.get(a).withNames("send", "reports"));
      commit();

      assertMatches(queue("emails"), b);
      assertMatches(queue("reports"), a, c);
      assertMatches(type("send"), a, b);
      assertMatches(state(State.UNFINISHED), a, b, c);
      assertMatches(new IndexQuery(set("reports"), set("send"), null), a);
    }

    @Test
    void movesAJobToAnotherType() {
      put(records.get(b).withNames("render", "emails"));
      commit();

      assertMatches(type("send"), a);
      assertMatches(type("render"), b, c);
      assertMatches(queue("emails"), a, b);
      assertMatches(new IndexQuery(set("emails"), set("render"), null), b);
    }

    @Test
    void movesAJobToAnotherState() {
      put(records.get(a).withStatus(JobStatus.COMPLETED));
      put(records.get(c).withStatus(JobStatus.DEAD));
      commit();

      assertMatches(state(State.UNFINISHED), b);
      assertMatches(state(State.COMPLETED), a);
      assertMatches(state(State.DEAD), c);
      assertMatches(queue("emails"), a, b);

      put(records.get(c).withStatus(JobStatus.READY)); // a dead job retried
      commit();

      assertMatches(state(State.DEAD));
      assertMatches(state(State.UNFINISHED), b, c);
    }

    @Test
    void keepsAJobUnderUnfinishedThroughScheduledReadyAndInFlight() {
      for (JobStatus status : List.of(JobStatus.IN_FLIGHT, JobStatus.SCHEDULED, JobStatus.READY,
          JobStatus.IN_FLIGHT)) {
        put(records.get(a).withStatus(status));
        commit();

        assertMatches(state(State.UNFINISHED), a, b, c);
        assertThat(scanRecords(state(State.UNFINISHED), null, false).get(0).status())
            .isEqualTo(status);
      }
    }

    @Test
    void movesEveryTermAtOnce() {
      put(job(a, "reports", "render", JobStatus.DEAD));
      commit();

      assertMatches(queue("emails"), b);
      assertMatches(type("send"), b);
      assertMatches(state(State.UNFINISHED), b, c);
      assertMatches(new IndexQuery(set("reports"), set("render"), set(State.DEAD)), a);
      assertMatches(new IndexQuery(set("reports"), set("render"), null), a, c);

      put(job(a, "emails", "send", JobStatus.READY)); // and back
      commit();

      assertMatches(queue("emails"), a, b);
      assertMatches(queue("reports"), c);
      assertMatches(state(State.DEAD));
      assertMatches(new IndexQuery(set("reports"), set("render"), set(State.DEAD)));
    }

    @Test
    void followsSeveralMovesOfOneJobInOneBatch() {
      put(job(a, "reports", "send", JobStatus.READY));
      put(job(a, "reports", "render", JobStatus.IN_FLIGHT));
      put(job(a, "billing", "render", JobStatus.COMPLETED));
      commit();

      assertMatches(queue("emails"), b);
      assertMatches(queue("reports"), c);
      assertMatches(queue("billing"), a);
      assertMatches(type("send"), b);
      assertMatches(type("render"), a, c);
      assertMatches(state(State.COMPLETED), a);
      assertMatches(state(State.UNFINISHED), b, c);
    }

    @Test
    void deletesAJobFromEveryTerm() {
      delete(a);
      commit();

      assertMatches(queue("emails"), b);
      assertMatches(type("send"), b);
      assertMatches(state(State.UNFINISHED), b, c);
      assertMatches(new IndexQuery(set("emails"), set("send"), set(State.UNFINISHED)), b);
      assertThat(store.readJob(a)).isNull();
    }

    @Test
    void deletesAMovedJobFromItsCurrentTermsOnly() {
      put(job(c, "emails", "send", JobStatus.COMPLETED));
      commit();
      delete(c);
      commit();

      assertMatches(queue("emails"), a, b);
      assertMatches(queue("reports"));
      assertMatches(type("render"));
      assertMatches(type("send"), a, b);
      assertMatches(state(State.COMPLETED));
      assertMatches(state(State.values()), a, b);
    }

    @Test
    void indexesAJobCreatedMovedAndDeletedInOneBatchNowhere() {
      JobId d = id(4);
      put(d, "emails", "send", JobStatus.READY);
      put(job(d, "billing", "charge", JobStatus.DEAD));
      delete(d);
      commit();

      assertMatches(queue("emails"), a, b);
      assertMatches(queue("billing"));
      assertMatches(type("charge"));
      assertMatches(state(State.DEAD));
    }

    @Test
    void reindexesAJobDeletedAndRecreatedInOneBatch() {
      delete(b);
      put(b, "billing", "charge", JobStatus.DEAD);
      commit();

      assertMatches(queue("emails"), a);
      assertMatches(queue("billing"), b);
      assertMatches(type("send"), a);
      assertMatches(type("charge"), b);
      assertMatches(state(State.DEAD), b);
      assertMatches(state(State.UNFINISHED), a, c);
    }

    @Test
    void leavesTheIndexAsItWasWhenARecordIsRewrittenUnderTheSameEntry() throws Exception {
      JobSnapshot rewritten = new JobSnapshot(a, "send", "emails", 9, JobStatus.IN_FLIGHT, T0 + 5,
          2, 3, null, null, T0 + 1, T0 + 2, Job.NONE, Job.NONE, null);
      put(rewritten);
      commit();

      assertMatches(queue("emails"), a, b);
      assertThat(scanRecords(queue("emails"), null, false).get(0)).isEqualTo(rewritten);

      store.close();
      store = null;
      assertThat(storedIndexKeys()).isEqualTo(expectedIndexKeys(indexed));
      store = newStore();
    }

    @Test
    void leavesThreeStoredIndexKeysPerFinishedJobAndNonePerUnfinishedOne() throws Exception {
      put(job(a, "reports", "render", JobStatus.DEAD));
      put(job(b, "emails", "charge", JobStatus.READY));
      delete(c);
      JobId d = id(4);
      put(d, "billing", "send", JobStatus.COMPLETED);
      commit();
      put(job(d, "billing", "send", JobStatus.DEAD));
      commit();

      store.close();
      store = null;
      Set<String> stored = storedIndexKeys();
      store = newStore();

      assertThat(stored).hasSize(6).isEqualTo(expectedIndexKeys(indexed));
    }
  }

  @Nested
  class Names {
    @Test
    void keepsNamesThatShareAPrefixApart() {
      JobId a = id(1);
      JobId ab = id(2);
      JobId abc = id(3);
      JobId q = id(4);
      JobId q1 = id(5);
      JobId q10 = id(6);
      JobId aSpace = id(7);
      put(a, "a", "t", JobStatus.READY);
      put(ab, "ab", "tt", JobStatus.READY);
      put(abc, "abc", "t_", JobStatus.READY);
      put(q, "q", "t", JobStatus.READY);
      put(q1, "q1", "tt", JobStatus.READY);
      put(q10, "q10", "t_", JobStatus.READY);
      put(aSpace, "a ", "t ", JobStatus.READY);
      commit();

      assertMatches(queue("a"), a);
      assertMatches(queue("ab"), ab);
      assertMatches(queue("abc"), abc);
      assertMatches(queue("a "), aSpace);
      assertMatches(queue("q"), q);
      assertMatches(queue("q1"), q1);
      assertMatches(queue("q10"), q10);
      assertMatches(queue("q", "q10"), q, q10);
      assertMatches(queue("a", "abc"), a, abc);
      assertMatches(type("t"), a, q);
      assertMatches(type("tt"), ab, q1);
      assertMatches(type("t_"), abc, q10);
      assertMatches(type("t "), aSpace);
      assertMatches(new IndexQuery(set("a", "ab"), set("t"), null), a);
      assertMatches(new IndexQuery(set("q1"), set("t"), null));
      // Prefixes that no job uses find nothing, and neither do longer names.
      assertMatches(queue(""));
      assertMatches(queue("abcd"));
      assertMatches(queue("q100"));
      assertMatches(type(""));
      assertMatches(type("ttt"));

      for (boolean descending : new boolean[] {false, true}) {
        assertThat(scan(queue("a"), ab, descending)).isEqualTo(descending ? List.of(a)
            : List.of());
        assertThat(scan(queue("ab"), a, descending)).isEqualTo(descending ? List.of()
            : List.of(ab));
        assertThat(scan(queue("q1"), q, descending)).isEqualTo(descending ? List.of()
            : List.of(q1));
        assertThat(scan(queue("q"), q10, descending)).isEqualTo(descending ? List.of(q)
            : List.of());
      }
    }

    @Test
    void keepsPrefixSharingNamesApartWhenTheShorterNameHasLaterJobs() {
      // "q" jobs on both sides of the "q1" jobs in id order.
      put(id(1), "q", "t", JobStatus.READY);
      put(id(2), "q1", "t", JobStatus.READY);
      put(id(3), "q", "t", JobStatus.READY);
      put(id(4), "q1", "t", JobStatus.READY);
      put(id(5), "q", "t", JobStatus.READY);
      commit();

      assertMatches(queue("q"), id(1), id(3), id(5));
      assertMatches(queue("q1"), id(2), id(4));
      assertThat(scan(queue("q"), id(2), false)).containsExactly(id(3), id(5));
      assertThat(scan(queue("q"), id(4), true)).containsExactly(id(3), id(1));
      assertThat(scan(queue("q1"), id(3), true)).containsExactly(id(2));
      assertThat(scan(queue("q1"), id(3), false)).containsExactly(id(4));
    }

    @Test
    void indexesUnicodeNames() {
      JobId snowman = id(1);
      JobId accented = id(2);
      JobId cjk = id(3);
      JobId emoji = id(4);
      JobId plainE = id(5);
      put(snowman, "q:☃", "résumé_ünïcode", JobStatus.READY);
      put(accented, "é", "ü", JobStatus.DEAD);
      put(cjk, "日本語", "ジョブ", JobStatus.COMPLETED);
      put(emoji, "🚀", "😀", JobStatus.READY);
      put(plainE, "e", "u", JobStatus.READY);
      commit();
      reopen();

      assertMatches(queue("q:☃"), snowman);
      assertMatches(queue("é"), accented);
      assertMatches(queue("e"), plainE);
      assertMatches(queue("日本語"), cjk);
      assertMatches(queue("日本"));
      assertMatches(queue("🚀"), emoji);
      assertMatches(type("résumé_ünïcode"), snowman);
      assertMatches(type("ü"), accented);
      assertMatches(type("u"), plainE);
      assertMatches(type("ジョブ"), cjk);
      assertMatches(type("😀"), emoji);
      assertMatches(queue("é", "🚀", "日本語"), accented, cjk, emoji);
      assertMatches(new IndexQuery(set("🚀", "e"), set("😀"), set(State.UNFINISHED)), emoji);
    }

    @Test
    void keepsQueueTypeAndStateNamesThatLookAlikeApart() {
      JobId queueCompleted = id(1);
      JobId typeCompleted = id(2);
      JobId completed = id(3);
      JobId queueDead = id(4);
      JobId queueUnfinished = id(5);
      JobId queueS = id(6);
      put(queueCompleted, "completed", "completed_type", JobStatus.READY);
      put(typeCompleted, "other", "completed", JobStatus.READY);
      put(completed, "other", "x", JobStatus.COMPLETED);
      put(queueDead, "dead", "dead", JobStatus.READY);
      put(queueUnfinished, "unfinished", "UNFINISHED", JobStatus.DEAD);
      put(queueS, "s", "q", JobStatus.DEAD);
      commit();

      assertMatches(state(State.COMPLETED), completed);
      assertMatches(queue("completed"), queueCompleted);
      assertMatches(type("completed"), typeCompleted);
      assertMatches(state(State.DEAD), queueUnfinished, queueS);
      assertMatches(queue("dead"), queueDead);
      assertMatches(type("dead"), queueDead);
      assertMatches(state(State.UNFINISHED), queueCompleted, typeCompleted, queueDead);
      assertMatches(queue("unfinished"), queueUnfinished);
      assertMatches(type("UNFINISHED"), queueUnfinished);
      assertMatches(type("unfinished"));
      assertMatches(queue("s"), queueS);
      assertMatches(queue("q"));
      assertMatches(type("q"), queueS);
      assertMatches(type("s"));
      assertMatches(queue("other"), typeCompleted, completed);
      assertMatches(new IndexQuery(set("completed"), set("completed"), null));
      assertMatches(new IndexQuery(set("completed"), null, set(State.COMPLETED)));
    }

    @Test
    void ordersIdsAsUnsignedHighThenLowBits() {
      JobId zero = new JobId(0, 0);
      JobId loTop = new JobId(0, -1L);
      JobId loSign = new JobId(0, Long.MIN_VALUE);
      JobId one = new JobId(1, 0);
      JobId hiMax = new JobId(Long.MAX_VALUE, 5);
      JobId hiSign = new JobId(Long.MIN_VALUE, 5);
      JobId top = new JobId(-1L, -1L);
      List<JobId> ordered = List.of(zero, loSign, loTop, one, hiMax, hiSign, top);
      for (JobId id : List.of(top, one, hiSign, zero, loTop, hiMax, loSign)) {
        put(id, "u", "t", JobStatus.READY);
      }
      commit();

      List<JobId> sorted = new ArrayList<>(ordered);
      Collections.shuffle(sorted, new Random(1));
      Collections.sort(sorted);
      assertThat(sorted).as("JobId.compareTo").containsExactlyElementsOf(ordered);
      assertMatches(queue("u"), ordered.toArray(JobId[]::new));
      assertMatches(new IndexQuery(set("u", "v"), set("t"), set(State.UNFINISHED)),
          ordered.toArray(JobId[]::new));
      assertThat(scan(queue("u"), loTop, false)).containsExactly(one, hiMax, hiSign, top);
      assertThat(scan(queue("u"), hiSign, true)).containsExactly(hiMax, one, loTop, loSign, zero);
      assertThat(scan(queue("u"), new JobId(Long.MIN_VALUE, 0), false))
          .containsExactly(hiSign, top);
      assertThat(scan(queue("u"), new JobId(Long.MIN_VALUE, 0), true))
          .containsExactly(hiMax, one, loTop, loSign, zero);
      assertThat(scan(queue("u"), top, false)).isEmpty();
      assertThat(scan(queue("u"), zero, true)).isEmpty();
    }

    @Test
    void ordersJobIdsLikeTheirStoreKeys() {
      Random random = new Random(42);
      long[] interesting = {0, 1, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 0xFFL, 0x100L};
      for (int i = 0; i < 20_000; i++) {
        JobId x = new JobId(pick(random, interesting), pick(random, interesting));
        JobId y = new JobId(pick(random, interesting), pick(random, interesting));
        assertThat(Integer.signum(x.compareTo(y)))
            .as("%s vs %s", x, y)
            .isEqualTo(Integer.signum(Arrays.compareUnsigned(Keys.job(x), Keys.job(y))));
      }
    }

    private long pick(Random random, long[] interesting) {
      return random.nextBoolean() ? interesting[random.nextInt(interesting.length)]
          : random.nextLong();
    }
  }

  @Nested
  class Rebuild {
    final JobId a = id(1);
    final JobId b = id(2);
    final JobId c = id(3);
    final JobId d = id(4);
    final JobId e = id(5);

    /** Jobs written, moved and deleted, then the store closed. */
    @BeforeEach
    void writeJobsAndClose() throws Exception {
      put(a, "emails", "send", JobStatus.READY);
      put(b, "emails", "render", JobStatus.IN_FLIGHT);
      put(c, "reports", "send", JobStatus.COMPLETED);
      put(d, "ab", "send", JobStatus.DEAD);
      put(e, "a", "send", JobStatus.SCHEDULED);
      commit();
      put(job(a, "reports", "send", JobStatus.COMPLETED));
      delete(b);
      put(job(c, "reports", "render", JobStatus.DEAD));
      commit();
      store.close();
      store = null;

      withRawDb((db, families) -> {
        assertThat(families).containsKeys("default", "jobs", "index");
        assertThat(db.get(families.get("default"), VERSION_KEY)).as("index-version marker")
            .isNotNull();
        assertThat(keysOf(db, families.get("index"))).hasSize(9); // a, c and d are finished
      });
    }

    private void assertIndexOfTheWrittenJobs() throws RocksDBException {
      assertMatches(queue("emails"));
      assertMatches(queue("reports"), a, c);
      assertMatches(queue("a"), e);
      assertMatches(queue("ab"), d);
      assertMatches(type("send"), a, d, e);
      assertMatches(type("render"), c);
      assertMatches(state(State.UNFINISHED), e);
      assertMatches(state(State.COMPLETED), a);
      assertMatches(state(State.DEAD), c, d);
      assertMatches(new IndexQuery(set("reports", "a"), set("send"), null), a, e);
      assertThat(scan(queue("reports", "ab"), b, false)).containsExactly(c, d);
      assertThat(scan(queue("reports", "ab"), b, true)).containsExactly(a);

      // And the rebuilt index is maintained by later commits.
      put(job(e, "emails", "send", JobStatus.COMPLETED));
      delete(d);
      commit();
      assertMatches(queue("a"));
      assertMatches(queue("ab"));
      assertMatches(queue("emails"), e);
      assertMatches(state(State.COMPLETED), a, e);
      assertMatches(state(State.UNFINISHED));

      store.close();
      store = null;
      assertThat(storedIndexKeys()).isEqualTo(expectedIndexKeys(indexed));
      store = newStore();
    }

    @Test
    void opensTheIntactIndexAgain() throws Exception {
      store = newStore();

      assertIndexOfTheWrittenJobs();
    }

    @Test
    void rebuildsAnEmptiedIndexWithoutItsMarker() throws Exception {
      withRawDb((db, families) -> {
        db.delete(families.get("default"), VERSION_KEY);
        for (byte[] key : keysOf(db, families.get("index"))) {
          db.delete(families.get("index"), key);
        }
      });
      store = newStore();

      assertIndexOfTheWrittenJobs();
    }

    @Test
    void rebuildsADroppedIndexColumnFamily() throws Exception {
      withRawDb((db, families) -> {
        db.delete(families.get("default"), VERSION_KEY);
        db.dropColumnFamily(families.get("index"));
      });
      withRawDb((db, families) -> assertThat(families).doesNotContainKey("index"));
      store = newStore();

      assertIndexOfTheWrittenJobs();
    }

    @Test
    void replacesStaleIndexKeysWhenRebuilding() throws Exception {
      withRawDb((db, families) -> {
        ColumnFamilyHandle index = families.get("index");
        db.delete(families.get("default"), VERSION_KEY);
        // Keys from a broken or older index: a ghost queue for a live job, the old queue of a
        // moved job, and a deleted job.
        db.put(index, IndexKeys.key(IndexKeys.prefix(IndexKeys.QUEUE, "ghost"), Keys.job(a)),
            new byte[0]);
        db.put(index, IndexKeys.key(IndexKeys.prefix(IndexKeys.QUEUE, "emails"), Keys.job(a)),
            new byte[0]);
        db.put(index, IndexKeys.key(IndexKeys.prefix(IndexKeys.TYPE, "render"), Keys.job(b)),
            new byte[0]);
        db.put(index, IndexKeys.key(IndexWrites.statePrefix(State.UNFINISHED), Keys.job(c)),
            new byte[0]);
      });
      store = newStore();

      assertMatches(queue("ghost"));
      assertIndexOfTheWrittenJobs();
    }

    @Test
    void dropsTheUnfinishedJobsKeysOfAVersionOneIndex() throws Exception {
      withRawDb((db, families) -> {
        ColumnFamilyHandle index = families.get("index");
        db.put(families.get("default"), VERSION_KEY, new byte[] {1});
        // Version 1 also stored the terms of unfinished jobs, here e's.
        for (byte[] prefix : List.of(IndexKeys.prefix(IndexKeys.QUEUE, "a"),
            IndexKeys.prefix(IndexKeys.TYPE, "send"), IndexWrites.statePrefix(State.UNFINISHED))) {
          db.put(index, IndexKeys.key(prefix, Keys.job(e)), new byte[0]);
        }
      });
      store = newStore();
      store.close();
      store = null;

      assertThat(storedIndexKeys()).isEqualTo(expectedIndexKeys(indexed));
      withRawDb((db, families) -> assertThat(db.get(families.get("default"), VERSION_KEY))
          .containsExactly(2));
      store = newStore();
      assertIndexOfTheWrittenJobs();
    }

    @Test
    void writesTheMarkerSoThatTheNextOpenDoesNotRebuild() throws Exception {
      withRawDb((db, families) -> db.delete(families.get("default"), VERSION_KEY));
      store = newStore();
      store.close();
      store = null;

      withRawDb((db, families) ->
          assertThat(db.get(families.get("default"), VERSION_KEY)).isNotNull());
      store = newStore();
      assertIndexOfTheWrittenJobs();
    }
  }

  @Nested
  class ConcurrentReads {
    /**
     * A writer moves half the jobs between queues x and y, flipping them between ready (held in
     * memory) and completed (stored), while this thread scans and counts. The jobs it leaves
     * alone are always found and counted, each job at most once and in order, and every record
     * read matches the query.
     */
    @Test
    void findEveryJobLeftAloneWhileAWriterMovesOthers() throws Exception {
      int jobs = 200;
      int moving = 100; // ids 1 to 100; 101 to 200 stay where they are
      Random random = new Random(7);
      for (int i = 0; i < jobs; i++) {
        put(id(i + 1), i % 2 == 0 ? "x" : "y", "t", JobStatus.READY);
      }
      commit();

      Thread writer = new Thread(() -> {
        for (int batch = 0; batch < 300; batch++) {
          for (int k = 0; k < 5; k++) {
            JobSnapshot current = records.get(id(1 + random.nextInt(moving)));
            JobSnapshot moved = current.withNames("t", current.queue().equals("x") ? "y" : "x");
            put(moved.withStatus(
                current.status() == JobStatus.READY ? JobStatus.COMPLETED : JobStatus.READY));
          }
          commit();
        }
      });
      List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
      writer.setUncaughtExceptionHandler((thread, e) -> failures.add(e));
      writer.start();
      int rounds = 0;
      List<JobId> leftAlone = new ArrayList<>();
      for (int i = moving + 1; i <= jobs; i++) {
        leftAlone.add(id(i));
      }
      IndexQuery both = queue("x", "y");
      IndexQuery xCompleted = new IndexQuery(set("x"), null, set(State.COMPLETED));
      while (writer.isAlive() || rounds < 5) {
        rounds++;
        boolean descending = rounds % 2 == 0;
        assertThat(store.countJobs(both)).isBetween((long) jobs - moving, (long) jobs);
        List<JobId> all = new ArrayList<>();
        try (JobScan scan = store.scanJobs(both, null, descending)) {
          scan.forEachRemaining(job -> all.add(job.id()));
        }
        List<JobId> sorted = new ArrayList<>(all);
        sorted.sort(descending ? Collections.reverseOrder() : null);
        assertThat(all).doesNotHaveDuplicates().isEqualTo(sorted).containsAll(leftAlone);
        try (JobScan scan = store.scanJobs(xCompleted, id(jobs / 3), descending)) {
          scan.forEachRemaining(job -> {
            assertThat(job.queue()).isEqualTo("x");
            assertThat(job.status()).isEqualTo(JobStatus.COMPLETED);
          });
        }
        try (JobScan scan = store.scanJobs(state(State.UNFINISHED), null, descending)) {
          scan.forEachRemaining(job -> assertThat(job.status()).isEqualTo(JobStatus.READY));
        }
      }
      writer.join();
      assertThat(failures).isEmpty();
      assertThat(rounds).isGreaterThanOrEqualTo(5);

      assertMatches(queue("x", "y"), indexed.keySet().toArray(JobId[]::new));
      for (String name : List.of("x", "y")) {
        assertMatches(queue(name), indexed.entrySet().stream()
            .filter(entry -> entry.getValue().queue().equals(name))
            .map(Map.Entry::getKey).toArray(JobId[]::new));
      }
    }
  }

  @Nested
  class LargeRebuild {
    @Test
    void rebuildsMoreJobsThanOneBuilderBatch() throws Exception {
      int total = 10_000 + 7; // crosses the builder's write batch size
      String[] queues = {"q", "q1", "q10"};
      for (int i = 0; i < total; i++) {
        JobStatus status = i % 5 == 0 ? JobStatus.COMPLETED : JobStatus.READY;
        put(id(i + 1), queues[i % 3], i % 2 == 0 ? "even" : "odd", status);
        if (pending.size() == 5_000) {
          commit();
        }
      }
      commit();
      store.close();
      store = null;
      withRawDb((db, families) -> db.delete(families.get("default"), VERSION_KEY));
      withRawDb((db, families) -> {
        for (byte[] key : keysOf(db, families.get("index"))) {
          db.delete(families.get("index"), key);
        }
      });

      store = newStore();

      for (IndexQuery query : List.of(queue("q"), queue("q1"), queue("q10"), type("even"),
          type("odd"), state(State.COMPLETED), state(State.UNFINISHED), state(State.DEAD),
          new IndexQuery(set("q"), set("even"), set(State.COMPLETED)),
          new IndexQuery(set("q1", "q10"), set("odd"), null))) {
        assertThat(store.countJobs(query)).as("count %s", query).isEqualTo(modelCount(query));
      }
      assertThat(store.countJobs(queue("q"))).isEqualTo(3_336);
      assertThat(store.countJobs(type("even"))).isEqualTo(5_004);
      assertThat(store.countJobs(state(State.COMPLETED))).isEqualTo(2_002);
      assertThat(store.countJobs(state(State.values()))).isEqualTo(total);
      List<JobId> last = new ArrayList<>();
      try (JobScan scan = store.scanJobs(queue("q10"), null, true)) {
        for (int i = 0; i < 3; i++) {
          last.add(scan.next().id());
        }
      }
      // Job i + 1 is in queues[i % 3]: q10 holds ids 3, 6, ..., 10 005.
      assertThat(last).containsExactly(id(10_005), id(10_002), id(9_999));
      // q1 holds ids 2, 5, ...; odd i means even ids: ..., 9 992, 9 998, 10 004.
      assertThat(scan(new IndexQuery(set("q1"), set("odd"), null), id(9_992), false))
          .containsExactly(id(9_998), id(10_004));
      assertThat(scan(new IndexQuery(set("q1"), set("odd"), null), id(10_004), true))
          .startsWith(id(9_998), id(9_992));
    }

    private long modelCount(IndexQuery query) {
      return indexed.values().stream().filter(entry -> matches(query, entry)).count();
    }
  }

  // ================================================================= randomized model test

  private static boolean matches(IndexQuery query, IndexEntry entry) {
    return (query.queues() == null || query.queues().contains(entry.queue()))
        && (query.types() == null || query.types().contains(entry.type()))
        && (query.states() == null || query.states().contains(entry.state()));
  }

  @Nested
  class AgainstAModel {
    private static final String[] QUEUES =
        {"a", "ab", "abc", "q", "q1", "q10", "completed", "dead", "☃", "日本", "é"};
    private static final String[] TYPES = {"t", "t_", "tt", "send", "sendEmail", "completed", "ü"};
    private static final String[] QUERY_ONLY_NAMES = {"", "b", "q100", "日", "unfinished"};
    private static final JobStatus[] STATUSES = JobStatus.values();

    private Random random;
    /** Every id ever created, deleted ones included. */
    private final List<JobId> everCreated = new ArrayList<>();
    private final Set<JobId> usedIds = new HashSet<>();
    private int queriesChecked;
    private long resultsChecked;

    @Test
    void matchesTheModelUnderRandomWritesAndQueriesSeed1() throws Exception {
      run(1L, 1_500);
    }

    @Test
    void matchesTheModelUnderRandomWritesAndQueriesSeed20240607() throws Exception {
      run(20_240_607L, 1_000);
    }

    private void run(long seed, int operations) throws Exception {
      random = new Random(seed);
      int done = 0;
      int batches = 0;
      while (done < operations) {
        int size = 1 + random.nextInt(random.nextInt(8) == 0 ? 40 : 8);
        for (int i = 0; i < size; i++) {
          randomOperation();
        }
        done += size;
        commit();
        batches++;
        for (int i = 0; i < 4; i++) {
          checkRandomQuery(seed, batches);
        }
        if (batches % 50 == 0) {
          checkEveryValue(seed, batches);
        }
        if (batches % 73 == 0) {
          reopen();
        }
      }
      checkEveryValue(seed, batches);
      assertThat(queriesChecked).isGreaterThan(500);
      assertThat(resultsChecked).as("results compared").isGreaterThan(5_000);

      store.close();
      store = null;
      assertThat(storedIndexKeys()).as("index keys, seed %s", seed)
          .isEqualTo(expectedIndexKeys(indexed));
      store = newStore();
      checkEveryValue(seed, -1);
    }

    private void randomOperation() {
      int roll = random.nextInt(100);
      if (indexed.isEmpty() || roll < 40) {
        JobId id = newId();
        put(id, pick(QUEUES), pick(TYPES), pick(STATUSES));
        return;
      }
      JobId id = anyLive();
      JobSnapshot current = records.get(id);
      if (roll < 55) {
        put(current.withNames(current.type(), pick(QUEUES)));
      } else if (roll < 67) {
        put(current.withNames(pick(TYPES), current.queue()));
      } else if (roll < 82) {
        put(current.withStatus(pick(STATUSES)));
      } else if (roll < 87) {
        put(job(id, pick(QUEUES), pick(TYPES), pick(STATUSES)));
      } else if (roll < 89) {
        delete(id); // and recreated in the same batch, under new names
        put(id, pick(QUEUES), pick(TYPES), pick(STATUSES));
      } else {
        delete(id);
      }
    }

    private JobId newId() {
      while (true) {
        JobId id = randomId();
        if (usedIds.add(id)) {
          everCreated.add(id);
          return id;
        }
      }
    }

    /** Ids from a few clusters, several of them with the sign bits set. */
    private JobId randomId() {
      long[] his = {0, 1, HI, Long.MAX_VALUE, Long.MIN_VALUE, -1L};
      long hi = his[random.nextInt(his.length)];
      long lo = switch (random.nextInt(3)) {
        case 0 -> random.nextInt(2_000) - 1_000; // small, around zero (negative = huge unsigned)
        case 1 -> Long.MIN_VALUE + random.nextInt(1_000);
        default -> random.nextLong();
      };
      return new JobId(hi, lo);
    }

    private JobId anyLive() {
      // Deterministic: the ids in sorted order.
      List<JobId> live = new ArrayList<>(indexed.keySet());
      return live.get(random.nextInt(live.size()));
    }

    private <T> T pick(T[] values) {
      return values[random.nextInt(values.length)];
    }

    private IndexQuery randomQuery() {
      while (true) {
        Set<String> queues = random.nextInt(10) < 6 ? randomSubset(QUEUES) : null;
        Set<String> types = random.nextInt(10) < 4 ? randomSubset(TYPES) : null;
        Set<State> states = null;
        if (random.nextInt(10) < 4) {
          states = EnumSet.noneOf(State.class);
          int count = 1 + random.nextInt(random.nextInt(20) == 0 ? 3 : 2);
          while (states.size() < count) {
            states.add(pick(State.values()));
          }
        }
        if (queues != null || types != null || states != null) {
          return new IndexQuery(queues, types, states);
        }
      }
    }

    private Set<String> randomSubset(String[] names) {
      Set<String> subset = new LinkedHashSet<>();
      if (random.nextInt(50) == 0) {
        return subset; // an empty set matches nothing
      }
      int count = 1 + random.nextInt(random.nextInt(4) == 0 ? names.length : 3);
      while (subset.size() < count) {
        subset.add(pick(names));
      }
      if (random.nextInt(8) == 0) {
        subset.add(pick(QUERY_ONLY_NAMES));
      }
      return subset;
    }

    private JobId randomAfter() {
      int roll = random.nextInt(10);
      if (roll < 3 || everCreated.isEmpty()) {
        return null;
      }
      if (roll < 6) {
        return everCreated.get(random.nextInt(everCreated.size()));
      }
      if (roll < 8) {
        JobId near = everCreated.get(random.nextInt(everCreated.size()));
        return new JobId(near.hi(), near.lo() + (random.nextBoolean() ? 1 : -1));
      }
      return randomId();
    }

    private List<JobId> expected(IndexQuery query, JobId after, boolean descending) {
      List<JobId> ids = new ArrayList<>();
      for (Map.Entry<JobId, IndexEntry> entry : indexed.entrySet()) {
        JobId id = entry.getKey();
        if (!matches(query, entry.getValue())) {
          continue;
        }
        if (after != null && (descending ? id.compareTo(after) >= 0 : id.compareTo(after) <= 0)) {
          continue;
        }
        ids.add(id);
      }
      if (descending) {
        Collections.reverse(ids);
      }
      return ids;
    }

    private void checkRandomQuery(long seed, int batch) {
      IndexQuery query = randomQuery();
      JobId after = randomAfter();
      boolean descending = random.nextBoolean();
      List<JobId> expected = expected(query, after, descending);
      String context = String.format("seed %d, batch %d: %s after %s %s", seed, batch, query,
          after, descending ? "descending" : "ascending");

      if (random.nextInt(4) == 0) {
        // Read only the first few and close early.
        int limit = random.nextInt(5);
        List<JobId> found = new ArrayList<>();
        try (JobScan scan = store.scanJobs(query, after, descending)) {
          while (found.size() < limit && scan.hasNext()) {
            JobSnapshot job = scan.next();
            assertThat(job).as(context).isEqualTo(records.get(job.id()));
            found.add(job.id());
          }
        }
        assertThat(found).as(context)
            .containsExactlyElementsOf(expected.subList(0, Math.min(limit, expected.size())));
      } else {
        assertThat(scan(query, after, descending)).as(context).containsExactlyElementsOf(expected);
      }
      assertThat(store.countJobs(query)).as("count, " + context)
          .isEqualTo(expected(query, null, false).size());
      queriesChecked++;
      resultsChecked += expected.size();
    }

    /** Every single value of every term, counted and scanned both ways. */
    private void checkEveryValue(long seed, int batch) {
      List<IndexQuery> queries = new ArrayList<>();
      for (String queue : QUEUES) {
        queries.add(queue(queue));
      }
      for (String name : QUERY_ONLY_NAMES) {
        queries.add(queue(name));
        queries.add(type(name));
      }
      for (String type : TYPES) {
        queries.add(type(type));
      }
      for (State state : State.values()) {
        queries.add(state(state));
      }
      for (IndexQuery query : queries) {
        List<JobId> expected = expected(query, null, false);
        String context = String.format("seed %d, batch %d: %s", seed, batch, query);
        assertThat(scan(query, null, false)).as(context).containsExactlyElementsOf(expected);
        assertThat(store.countJobs(query)).as("count, " + context).isEqualTo(expected.size());
        resultsChecked += expected.size();
      }
      long total = store.countJobs(state(State.values()));
      assertThat(total).as("all states, seed %d, batch %d", seed, batch)
          .isEqualTo(indexed.size());
      List<JobId> everything = new ArrayList<>();
      store.scanJobs(job -> everything.add(job.id()));
      assertThat(everything).containsExactlyElementsOf(indexed.keySet());
    }
  }
}
