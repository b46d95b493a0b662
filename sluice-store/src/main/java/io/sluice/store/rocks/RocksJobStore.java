package io.sluice.store.rocks;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.JobScans;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.StorageException;
import io.sluice.engine.store.StorageMaintenance;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.NoSuchElementException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.PerfLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.TablePropertiesCollectorFactory;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job store on RocksDB: one column family each for job records, payloads, error records,
 * budget policies and the token state of durable budgets (X4). A record may hold its job's
 * payload ({@link Mutation.PutJob#payloadInRecord}); only the other payloads have keys of their
 * own.
 *
 * <p>Every commit goes through the write-ahead log; {@code sync} commits also fsync it. Commits
 * come from the single commit thread; reads, checkpoints and compactions are thread-safe.
 */
public final class RocksJobStore implements JobStore, StorageMaintenance {
  private static final Logger LOG = LoggerFactory.getLogger(RocksJobStore.class);
  private static final long MAX_SEQUENCE = 0xFFFFFFFFL;
  /**
   * One builder per committing thread (the engine's, the commit thread, a cluster's applier),
   * reset for each batch: its buffers are reused rather than allocated and regrown per commit.
   */
  private static final ThreadLocal<BatchBuilder> BATCH_BUILDERS =
      ThreadLocal.withInitial(BatchBuilder::new);
  /**
   * Set on a thread once it has turned RocksDB's performance counters off for itself. They are
   * on by default, per thread: every key comparison of a memtable insert then bumps a
   * thread-local counter nobody reads, and in a library loaded at run time each such access is
   * a call (__tls_get_addr), about 3% of the event loop under a drain.
   */
  private static final ThreadLocal<Boolean> PERF_COUNTERS_OFF = new ThreadLocal<>();
  /** Markers ({@link #writeSerialized}) live in the default family under this prefix. */
  private static final byte[] MARKER_PREFIX = bytes("marker/");
  /** How long closing waits for reads in progress (scans stop at their next step). */
  private static final long CLOSE_WAIT_MILLIS = 10_000;
  /**
   * A table file is marked for compaction when {@value #DELETION_TRIGGER} of any
   * {@value #DELETION_WINDOW} consecutive entries, or half of all of them, are deletions: every
   * finished job leaves tombstones, and RocksDB's own compactions then reclaim them early.
   */
  private static final long DELETION_WINDOW = 10_000;
  private static final long DELETION_TRIGGER = 5_000;
  private static final double DELETION_RATIO = 0.5;

  static {
    RocksNativeLibrary.load();
  }

  private final LRUCache cache;
  private final BloomFilter bloomFilter;
  private final TablePropertiesCollectorFactory deletionCollector;
  private final ColumnFamilyOptions familyOptions;
  private final DBOptions dbOptions;
  private final WriteOptions bufferedWrites = new WriteOptions().setSync(false);
  private final WriteOptions syncedWrites = new WriteOptions().setSync(true);
  private final RocksDB db;
  private final OpenUses uses = new OpenUses();
  /**
   * Filled by the first scan of every record (the engine's recovery reads them all anyway), or
   * by a scan of its own when something needs it first; null until then.
   */
  private volatile UnfinishedIndex unfinished;
  private final Object unfinishedLoad = new Object();
  private boolean closed;
  /**
   * The options of the compactions running now, so that closing can cancel them. Guarded by
   * itself: an options object is cancelled only while registered, and freed only once removed.
   */
  private final Set<CompactRangeOptions> compactions = new HashSet<>();
  private final List<ColumnFamilyHandle> handles = new ArrayList<>();
  private final ColumnFamilyHandle jobs;
  private final ColumnFamilyHandle payloads;
  private final ColumnFamilyHandle errors;
  private final ColumnFamilyHandle budgets;
  private final ColumnFamilyHandle index;
  private final ColumnFamilyHandle pointers;
  private final ColumnFamilyHandle crons;
  private final ColumnFamilyHandle bucketStates;
  /** Column family ids, for batches built without a native call per key. */
  private final int jobsId;
  private final int payloadsId;
  private final int errorsId;
  private final int budgetsId;
  private final int indexId;
  private final int pointersId;
  private final int cronsId;
  private final int bucketStatesId;

  /**
   * Unflushed writes over all column families: past it the largest memtable is flushed. Each
   * family may grow to 64 MiB alone; together they stop at 48 (docs/decisions.md).
   */
  private static final long MEMTABLES_BYTES = 48L << 20;

  public RocksJobStore(StoreConfig config) {
    cache = new LRUCache(Math.max(config.cacheBytes(), 8L << 20));
    bloomFilter = new BloomFilter(10);
    deletionCollector = TablePropertiesCollectorFactory.NewCompactOnDeletionCollectorFactory(
        DELETION_WINDOW, DELETION_TRIGGER, DELETION_RATIO);
    // RocksJava sets table properties collectors on Options only; the column family part is
    // copied out of them (the native options share the cache, filter and collector).
    try (Options options = new Options()) {
      options.setCompressionType(CompressionType.LZ4_COMPRESSION)
          .setWriteBufferSize(64L << 20)
          .setTableFormatConfig(new BlockBasedTableConfig()
              .setBlockCache(cache)
              .setFilterPolicy(bloomFilter));
      options.setTablePropertiesCollectorFactory(List.of(deletionCollector));
      familyOptions = new ColumnFamilyOptions(options);
    }
    dbOptions = new DBOptions()
        .setCreateIfMissing(true)
        .setCreateMissingColumnFamilies(true)
        .setMaxBackgroundJobs(2)
        .setDbWriteBufferSize(MEMTABLES_BYTES);
    List<ColumnFamilyDescriptor> descriptors = List.of(
        new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions),
        new ColumnFamilyDescriptor(bytes("jobs"), familyOptions),
        new ColumnFamilyDescriptor(bytes("payloads"), familyOptions),
        new ColumnFamilyDescriptor(bytes("errors"), familyOptions),
        new ColumnFamilyDescriptor(bytes("budgets"), familyOptions),
        new ColumnFamilyDescriptor(bytes("index"), familyOptions),
        new ColumnFamilyDescriptor(bytes("pointers"), familyOptions),
        new ColumnFamilyDescriptor(bytes("crons"), familyOptions),
        new ColumnFamilyDescriptor(bytes("bucket_states"), familyOptions));
    try {
      Files.createDirectories(config.dataDir());
      db = RocksDB.open(dbOptions, config.dataDir().toString(), descriptors, handles);
    } catch (Exception e) {
      closeOptions();
      throw new StorageException("open of " + config.dataDir(), e);
    }
    jobs = handles.get(1);
    payloads = handles.get(2);
    errors = handles.get(3);
    budgets = handles.get(4);
    index = handles.get(5);
    pointers = handles.get(6);
    crons = handles.get(7);
    bucketStates = handles.get(8);
    jobsId = jobs.getID();
    payloadsId = payloads.getID();
    errorsId = errors.getID();
    budgetsId = budgets.getID();
    indexId = index.getID();
    pointersId = pointers.getID();
    cronsId = crons.getID();
    bucketStatesId = bucketStates.getID();
    try {
      new IndexBuilder(db, jobs, index, handles.get(0)).buildIfMissing();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private static byte[] bytes(String name) {
    return name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  @Override
  public void commit(CommitBatch batch) {
    uses.enter();
    try {
      UnfinishedIndex index = unfinished(); // loaded before the write, if it must be
      List<IndexChange> changes = new ArrayList<>();
      try (WriteBatch built = new WriteBatch(serialize(batch, changes))) {
        turnPerfCountersOff();
        db.write(batch.sync() ? syncedWrites : bufferedWrites, built);
      } catch (RocksDBException e) {
        throw new StorageException("commit", e);
      }
      apply(index, changes);
    } finally {
      uses.exit();
    }
  }

  /** RocksDB's performance-counting level on the calling thread. */
  PerfLevel perfLevelOfThisThread() {
    return db.getPerfLevel();
  }

  /** For the calling thread: the level is RocksDB's thread-local, whichever database sets it. */
  private void turnPerfCountersOff() {
    if (PERF_COUNTERS_OFF.get() == null) {
      db.setPerfLevel(PerfLevel.DISABLE);
      PERF_COUNTERS_OFF.set(Boolean.TRUE);
    }
  }

  /** What a job was and is now indexed under (null: nothing), for the in-memory index. */
  private record IndexChange(JobId id, IndexEntry from, IndexEntry to) {}

  /** After the write: a reader never finds an unfinished job whose record is not there yet. */
  private static void apply(UnfinishedIndex index, List<IndexChange> changes) {
    for (IndexChange change : changes) {
      index.move(change.id(), change.from(), change.to());
    }
  }

  private UnfinishedIndex unfinished() {
    UnfinishedIndex index = unfinished;
    if (index == null) {
      synchronized (unfinishedLoad) {
        index = unfinished;
        if (index == null) {
          index = loadUnfinished();
          unfinished = index;
        }
      }
    }
    return index;
  }

  /** The unfinished jobs' index terms, from the records: the stored index lacks them. */
  private UnfinishedIndex loadUnfinished() {
    UnfinishedIndex loaded = new UnfinishedIndex();
    try (ReadOptions options = new ReadOptions().setFillCache(false);
        RocksIterator it = db.newIterator(jobs, options)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        JobId id = Keys.jobId(it.key());
        IndexEntry entry;
        try {
          entry = RecordCodec.decodeIndexEntry(it.value());
        } catch (RuntimeException e) {
          // Reading the record fails later too, where it is asked for; opening need not.
          LOG.warn("job {} has an unreadable record; it is left out of the index", id, e);
          continue;
        }
        loaded.move(id, null, entry);
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of unfinished jobs", e);
    }
    return loaded;
  }

  /**
   * The commit's records in RocksDB's serialized write-batch form, for a replicated log entry:
   * {@link #writeSerialized} applies it on any store, since every store numbers its column
   * families alike ({@link #numbersFamiliesInCreationOrder}).
   */
  public byte[] serialize(CommitBatch batch) {
    uses.enter(); // a rewrite may read the record it rewrites
    try {
      return serialize(batch, null);
    } finally {
      uses.exit();
    }
  }

  /** {@code changes}, if not null, gets the commit's changes to the in-memory index. */
  private byte[] serialize(CommitBatch batch, List<IndexChange> changes) {
    BatchBuilder writes = BATCH_BUILDERS.get().reset();
    List<Mutation> mutations = batch.mutations();
    EarlierRecords earlier = new EarlierRecords(mutations);
    for (int i = 0; i < mutations.size(); i++) {
      apply(writes, mutations.get(i), earlier, i, changes);
    }
    return writes.serialized();
  }

  /**
   * The payload a rewrite of a record carries over: what the job's latest record earlier in the
   * batch holds, else what its stored record holds.
   *
   * @throws IllegalStateException when that is none: writing the record without it would lose
   *     the payload
   */
  private byte[] carriedPayload(EarlierRecords earlier, int rewrite, JobId id) {
    byte[] payload;
    if (earlier.wrote(id, rewrite)) {
      payload = earlier.payload(id);
    } else {
      try {
        byte[] stored = db.get(jobs, Keys.job(id));
        payload = stored == null ? null : RecordCodec.payloadOf(id, stored);
      } catch (RocksDBException e) {
        throw new StorageException("read of job " + id, e);
      }
    }
    if (payload == null) {
      throw new IllegalStateException(
          "job " + id + " is to carry over the payload of its record, which holds none");
    }
    return payload;
  }

  /**
   * The in-memory index changes a serialized batch makes: it holds only the new records, so
   * what each job was indexed under is read from its record before the batch is written.
   */
  private List<IndexChange> indexChanges(byte[] serialized) {
    List<IndexChange> changes = new ArrayList<>();
    Map<JobId, IndexEntry> written = new HashMap<>();
    BatchRecords.forEach(serialized, (family, key, value) -> {
      if (family != jobsId) {
        return;
      }
      JobId id = Keys.jobId(key);
      IndexEntry from = written.get(id);
      if (from == null && !written.containsKey(id)) {
        try {
          byte[] stored = db.get(jobs, key);
          from = stored == null ? null : RecordCodec.decodeIndexEntry(stored);
        } catch (RocksDBException e) {
          throw new StorageException("replicated commit", e);
        }
      }
      IndexEntry to = value == null ? null : RecordCodec.decodeIndexEntry(value);
      written.put(id, to);
      changes.add(new IndexChange(id, from, to));
    });
    return changes;
  }

  /** A small record beside the jobs, such as a replicated log's applied position. */
  public record Marker(byte[] key, byte[] value) {}

  /** Writes a batch from {@link #serialize} and the markers, in one atomic write. */
  public void writeSerialized(byte[] serialized, List<Marker> markers, boolean sync) {
    uses.enter();
    try (WriteBatch batch = new WriteBatch(serialized)) {
      List<IndexChange> changes = indexChanges(serialized);
      // Loaded (before the write) only when the batch changes jobs: most marker-only entries
      // of a follower need no index.
      UnfinishedIndex index = changes.isEmpty() ? null : unfinished();
      for (Marker marker : markers) {
        batch.put(handles.get(0), markerKey(marker.key()), marker.value());
      }
      turnPerfCountersOff();
      db.write(sync ? syncedWrites : bufferedWrites, batch);
      if (index != null) {
        apply(index, changes);
      }
    } catch (RocksDBException | IllegalArgumentException e) {
      throw new StorageException("replicated commit", e);
    } finally {
      uses.exit();
    }
  }

  /** The value of a marker written by {@link #writeSerialized}, or null. */
  public byte[] readMarker(byte[] key) {
    uses.enter();
    try {
      return db.get(handles.get(0), markerKey(key));
    } catch (RocksDBException e) {
      throw new StorageException("read of a marker", e);
    } finally {
      uses.exit();
    }
  }

  /**
   * The value of a marker in a closed store or checkpoint at {@code dir}, read without opening
   * it as a store (read-only, default family only), or null.
   */
  public static byte[] readMarker(Path dir, byte[] key) {
    try (Options options = new Options();
        RocksDB readOnly = RocksDB.openReadOnly(options, dir.toString())) {
      return readOnly.get(markerKey(key));
    } catch (RocksDBException e) {
      throw new StorageException("read of a marker in " + dir, e);
    }
  }

  private static byte[] markerKey(byte[] key) {
    byte[] prefixed = new byte[MARKER_PREFIX.length + key.length];
    System.arraycopy(MARKER_PREFIX, 0, prefixed, 0, MARKER_PREFIX.length);
    System.arraycopy(key, 0, prefixed, MARKER_PREFIX.length, key.length);
    return prefixed;
  }

  /**
   * Whether the column families are numbered 0 (the default one) to 8 in the order this class
   * creates them, as in every store it created: serialized batches name families by number.
   */
  public boolean numbersFamiliesInCreationOrder() {
    for (int i = 0; i < handles.size(); i++) {
      if (handles.get(i).getID() != i) {
        return false;
      }
    }
    return true;
  }

  /** {@code at}: the mutation's place in its batch, whose {@code earlier} records it may read. */
  private void apply(BatchBuilder writes, Mutation mutation, EarlierRecords earlier, int at,
      List<IndexChange> changes) {
    if (mutation instanceof Mutation.PutJob put) {
      byte[] key = Keys.job(put.job().id());
      byte[] payload = !put.payloadInRecord() ? null
          : put.payload() != null ? put.payload()
          : carriedPayload(earlier, at, put.job().id());
      writes.put(jobsId, key, RecordCodec.encodeJob(put.job(), payload, writes.valueWriter()));
      IndexEntry entry = IndexEntry.of(put.job(), put.previous());
      IndexWrites.replace(writes, indexId, key, put.previous(), entry);
      if (changes != null && entry != put.previous()) {
        changes.add(new IndexChange(put.job().id(), put.previous(), entry));
      }
    } else if (mutation instanceof Mutation.PutPayload put) {
      writes.put(payloadsId, Keys.job(put.id()), put.payload());
    } else if (mutation instanceof Mutation.PutError put) {
      writes.put(errorsId, Keys.error(put.id(), put.error().sequence()),
          RecordCodec.encodeError(put.error()));
    } else if (mutation instanceof Mutation.DeleteJob delete) {
      byte[] key = Keys.job(delete.id());
      writes.delete(jobsId, key);
      if (!delete.payloadInRecord()) {
        writes.delete(payloadsId, key);
      }
      IndexWrites.replace(writes, indexId, key, delete.indexed(), null);
      if (changes != null && delete.indexed() != null) {
        changes.add(new IndexChange(delete.id(), delete.indexed(), null));
      }
      for (int sequence = 1; sequence <= delete.errorRecords(); sequence++) {
        writes.delete(errorsId, Keys.error(delete.id(), sequence));
      }
    } else if (mutation instanceof Mutation.PutBudget put) {
      writes.put(budgetsId, Keys.budget(put.budget().key()),
          RecordCodec.encodeBudget(put.budget()));
    } else if (mutation instanceof Mutation.DeleteBudget delete) {
      writes.delete(budgetsId, Keys.budget(delete.key()));
      writes.delete(bucketStatesId, Keys.budget(delete.key()));
    } else if (mutation instanceof Mutation.PutBucketState put) {
      writes.put(bucketStatesId, Keys.budget(put.key()), RecordCodec.encodeBucketState(put.state()));
    } else if (mutation instanceof Mutation.DeleteBucketState delete) {
      writes.delete(bucketStatesId, Keys.budget(delete.key()));
    } else if (mutation instanceof Mutation.PutPointer put) {
      writes.put(pointersId, Keys.pointer(put.kind(), put.key()), Keys.job(put.job()));
    } else if (mutation instanceof Mutation.DeletePointer delete) {
      writes.delete(pointersId, Keys.pointer(delete.kind(), delete.key()));
    } else if (mutation instanceof Mutation.PutCronGroup put) {
      writes.put(cronsId, Keys.budget(put.name()), put.record());
    } else if (mutation instanceof Mutation.DeleteCronGroup delete) {
      writes.delete(cronsId, Keys.budget(delete.name()));
    }
  }

  @Override
  public void scanBudgets(Consumer<BudgetView> sink) {
    uses.enter();
    try (RocksIterator it = db.newIterator(budgets)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        String key = Keys.budgetKey(it.key());
        sink.accept(RecordCodec.decodeBudget(key, it.value()));
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of budgets", e);
    } finally {
      uses.exit();
    }
  }

  @Override
  public void scanBucketStates(BiConsumer<String, BucketState> sink) {
    uses.enter();
    try (RocksIterator it = db.newIterator(bucketStates)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        String key = Keys.budgetKey(it.key());
        sink.accept(key, RecordCodec.decodeBucketState(key, it.value()));
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of bucket states", e);
    } finally {
      uses.exit();
    }
  }

  @Override
  public void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink) {
    uses.enter();
    try {
      byte[] prefix = Keys.pointerPrefix(kind);
      try (RocksIterator it = db.newIterator(pointers)) {
        for (it.seek(prefix); it.isValid() && it.key().length >= 1 && it.key()[0] == prefix[0];
            it.next()) {
          sink.accept(Keys.pointerKey(it.key()), Keys.jobId(it.value()));
        }
        it.status();
      } catch (RocksDBException e) {
        throw new StorageException("scan of " + kind + " pointers", e);
      }
    } finally {
      uses.exit();
    }
  }

  @Override
  public void scanCronGroups(BiConsumer<String, byte[]> sink) {
    uses.enter();
    try (RocksIterator it = db.newIterator(crons)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        sink.accept(Keys.budgetKey(it.key()), it.value());
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of cron groups", e);
    } finally {
      uses.exit();
    }
  }

  /**
   * Reads and decodes the records on a second thread while {@code sink} runs on this one: at
   * start-up the engine's recovery then overlaps with the reading instead of following it.
   */
  @Override
  public void scanJobs(Consumer<JobSnapshot> sink) {
    uses.enter();
    try {
      ReadAhead.run(this::readAllJobs, sink);
    } finally {
      uses.exit();
    }
  }

  /**
   * Fills the in-memory index on the way if nothing has yet; it is kept only if no commit
   * needed the index meanwhile (that commit loaded it itself before writing).
   */
  private void readAllJobs(Consumer<JobSnapshot> sink) {
    UnfinishedIndex filling = unfinished == null ? new UnfinishedIndex() : null;
    try (ReadOptions options = new ReadOptions().setFillCache(false);
        RocksIterator it = db.newIterator(jobs, options)) {
      for (it.seekToFirst(); it.isValid(); it.next()) {
        JobSnapshot job = RecordCodec.decodeJob(Keys.jobId(it.key()), it.value(), true);
        if (filling != null) {
          filling.move(job.id(), null, IndexEntry.of(job));
        }
        sink.accept(job);
      }
      it.status();
    } catch (RocksDBException e) {
      throw new StorageException("scan of jobs", e);
    }
    if (filling != null) {
      synchronized (unfinishedLoad) {
        if (unfinished == null) {
          unfinished = filling;
        }
      }
    }
  }

  @Override
  public JobScan scanJobs(JobId after, boolean descending) {
    return openScan(hold -> jobScan(hold.reader(db.newIterator(jobs, hold.options)), after,
        descending, hold::release));
  }

  private JobScan jobScan(RocksIterator it, JobId after, boolean descending, Runnable release) {
    if (after == null) {
      if (descending) {
        it.seekToLast();
      } else {
        it.seekToFirst();
      }
    } else {
      byte[] key = Keys.job(after);
      if (descending) {
        it.seekForPrev(key);
        if (it.isValid() && Arrays.equals(it.key(), key)) {
          it.prev();
        }
      } else {
        it.seek(key);
        if (it.isValid() && Arrays.equals(it.key(), key)) {
          it.next();
        }
      }
    }
    return new JobScan() {
      @Override
      public boolean hasNext() {
        uses.checkOpen();
        return it.isValid();
      }

      @Override
      public JobSnapshot next() {
        uses.checkOpen();
        if (!it.isValid()) {
          throw new NoSuchElementException();
        }
        JobSnapshot job = RecordCodec.decodeJob(Keys.jobId(it.key()), it.value());
        if (descending) {
          it.prev();
        } else {
          it.next();
        }
        return job;
      }

      @Override
      public void close() {
        release.run();
      }
    };
  }

  @Override
  public JobScan scanJobs(IndexQuery query, JobId after, boolean descending) {
    // The first step runs while the scan is made; a failure there releases it like the others.
    return openScan(hold -> indexScan(hold.reader(cursor(query, hold.options, descending)),
        query, hold.options, after, hold::release));
  }

  /**
   * Opens a scan over a snapshot; what it holds is released when the scan is closed, or at once
   * when making it fails (nobody else could then close it).
   */
  private JobScan openScan(Function<ScanHold, JobScan> open) {
    uses.enter(); // until the scan is closed
    ScanHold hold = new ScanHold();
    try {
      return open.apply(hold);
    } catch (RuntimeException e) {
      hold.release();
      throw e;
    }
  }

  /** What an open scan holds: a snapshot, its read options, the reader over them, a store use. */
  private final class ScanHold {
    final Snapshot snapshot = db.getSnapshot();
    final ReadOptions options = new ReadOptions().setSnapshot(snapshot);
    private final AtomicBoolean released = new AtomicBoolean();
    private Runnable closeReader = () -> { };

    RocksIterator reader(RocksIterator it) {
      closeReader = it::close;
      return it;
    }

    IdCursor reader(IdCursor cursor) {
      closeReader = cursor::close;
      return cursor;
    }

    /** Native objects first, then the store use; at most once. */
    void release() {
      if (released.compareAndSet(false, true)) {
        try {
          closeReader.run();
          options.close();
          db.releaseSnapshot(snapshot);
        } finally {
          uses.exit();
        }
      }
    }
  }

  /**
   * Records are read from the scan's snapshot and kept only if they match {@code query} there:
   * the unfinished jobs' part of the index is live, so it may name a job enqueued, finished or
   * moved since the snapshot.
   */
  private JobScan indexScan(IdCursor cursor, IndexQuery query, ReadOptions options, JobId after,
      Runnable release) {
    if (after != null) {
      byte[] key = Keys.job(after);
      cursor.seek(key);
      if (cursor.current() != null && Arrays.equals(cursor.current(), key)) {
        cursor.next();
      }
    }
    return JobScans.from(() -> {
      while (cursor.current() != null) {
        uses.checkOpen();
        byte[] key = cursor.current();
        cursor.next();
        byte[] value;
        try {
          value = db.get(jobs, options, key);
        } catch (RocksDBException e) {
          throw new StorageException("read of an indexed job", e);
        }
        if (value != null) {
          JobSnapshot job = RecordCodec.decodeJob(Keys.jobId(key), value);
          if (query.matches(job)) {
            return job;
          }
        }
      }
      return null;
    }, release);
  }

  /**
   * Counts index entries without reading records: unfinished jobs as the in-memory index holds
   * them while it is walked, finished ones as of one snapshot.
   */
  @Override
  public long countJobs(IndexQuery query) {
    uses.enter();
    try {
      Snapshot snapshot = db.getSnapshot();
      try (ReadOptions options = new ReadOptions().setSnapshot(snapshot);
          IdCursor cursor = cursor(query, options, false)) {
        long count = 0;
        for (; cursor.current() != null; cursor.next()) {
          if (++count % 4096 == 0) {
            uses.checkOpen(); // a count of millions must not hold a closing store
          }
        }
        return count;
      } finally {
        db.releaseSnapshot(snapshot);
      }
    } finally {
      uses.exit();
    }
  }

  /**
   * The unfinished jobs from memory and the finished ones from the stored index, as the query's
   * states ask; each part intersects its terms, every term a union of its values.
   */
  private IdCursor cursor(IndexQuery query, ReadOptions options, boolean descending) {
    Set<IndexEntry.State> states = query.states() == null
        ? EnumSet.allOf(IndexEntry.State.class) : EnumSet.copyOf(query.states());
    List<IdCursor> parts = new ArrayList<>(2);
    if (states.remove(IndexEntry.State.UNFINISHED)) {
      parts.add(unfinishedCursor(unfinished(), query, descending));
    }
    if (!states.isEmpty()) {
      // Stored queue and type keys are all of finished jobs: no state term needed for both.
      boolean everyFinished = query.states() == null
          && (query.queues() != null || query.types() != null);
      parts.add(storedCursor(new IndexQuery(query.queues(), query.types(),
          everyFinished ? null : states), options, descending));
    }
    return parts.size() == 1 ? parts.get(0) : new UnionCursor(parts, descending);
  }

  private static IdCursor unfinishedCursor(UnfinishedIndex unfinished, IndexQuery query,
      boolean descending) {
    List<IdCursor> terms = new ArrayList<>(2);
    if (query.queues() != null) {
      terms.add(union(query.queues().stream()
          .map(queue -> unfinished.queue(queue, descending)).toList(), descending));
    }
    if (query.types() != null) {
      terms.add(union(query.types().stream()
          .map(type -> unfinished.type(type, descending)).toList(), descending));
    }
    if (terms.isEmpty()) {
      return unfinished.all(descending);
    }
    return terms.size() == 1 ? terms.get(0) : new IntersectionCursor(terms, descending);
  }

  private static IdCursor union(List<IdCursor> parts, boolean descending) {
    return parts.size() == 1 ? parts.get(0) : new UnionCursor(parts, descending);
  }

  private IdCursor storedCursor(IndexQuery query, ReadOptions options, boolean descending) {
    List<IdCursor> terms = new ArrayList<>(3);
    if (query.queues() != null) {
      terms.add(union(query.queues().stream()
          .map(queue -> IndexKeys.prefix(IndexKeys.QUEUE, queue)).toList(), options, descending));
    }
    if (query.types() != null) {
      terms.add(union(query.types().stream()
          .map(type -> IndexKeys.prefix(IndexKeys.TYPE, type)).toList(), options, descending));
    }
    if (query.states() != null) {
      terms.add(union(query.states().stream().map(IndexWrites::statePrefix).toList(), options,
          descending));
    }
    return terms.size() == 1 ? terms.get(0) : new IntersectionCursor(terms, descending);
  }

  private IdCursor union(List<byte[]> prefixes, ReadOptions options, boolean descending) {
    List<IdCursor> parts = new ArrayList<>(prefixes.size());
    for (byte[] prefix : prefixes) {
      parts.add(new PrefixCursor(db.newIterator(index, options), prefix, descending));
    }
    return parts.size() == 1 ? parts.get(0) : new UnionCursor(parts, descending);
  }

  @Override
  public JobSnapshot readJob(JobId id) {
    uses.enter();
    try {
      byte[] value = db.get(jobs, Keys.job(id));
      return value == null ? null : RecordCodec.decodeJob(id, value);
    } catch (RocksDBException e) {
      throw new StorageException("read of job " + id, e);
    } finally {
      uses.exit();
    }
  }

  @Override
  public byte[] readPayload(JobId id) {
    uses.enter();
    try {
      byte[] key = Keys.job(id);
      byte[] record = db.get(jobs, key);
      byte[] inRecord = record == null ? null : RecordCodec.payloadOf(id, record);
      return inRecord != null ? inRecord : db.get(payloads, key);
    } catch (RocksDBException e) {
      throw new StorageException("read of payload " + id, e);
    } finally {
      uses.exit();
    }
  }

  @Override
  public List<ErrorRecord> readErrors(JobId id, long afterSequence, boolean descending,
      int limit) {
    uses.enter();
    try {
      List<ErrorRecord> found = new ArrayList<>();
      if (!descending && afterSequence >= MAX_SEQUENCE) {
        return found; // Nothing can follow the largest sequence number.
      }
      try (RocksIterator it = db.newIterator(errors)) {
        if (descending) {
          long start =
              afterSequence <= 0 ? MAX_SEQUENCE : Math.min(afterSequence - 1, MAX_SEQUENCE);
          for (it.seekForPrev(Keys.error(id, start));
              it.isValid() && found.size() < limit && Keys.isErrorOf(it.key(), id); it.prev()) {
            found.add(RecordCodec.decodeError(Keys.errorSequence(it.key()), it.value()));
          }
        } else {
          for (it.seek(Keys.error(id, afterSequence + 1));
              it.isValid() && found.size() < limit && Keys.isErrorOf(it.key(), id); it.next()) {
            found.add(RecordCodec.decodeError(Keys.errorSequence(it.key()), it.value()));
          }
        }
        it.status();
      } catch (RocksDBException e) {
        throw new StorageException("read of errors of " + id, e);
      }
      return found;
    } finally {
      uses.exit();
    }
  }

  @Override
  public ErrorRecord readError(JobId id, long sequence) {
    uses.enter();
    try {
      if (sequence < 1 || sequence > MAX_SEQUENCE) {
        return null;
      }
      try {
        byte[] value = db.get(errors, Keys.error(id, sequence));
        return value == null ? null : RecordCodec.decodeError((int) sequence, value);
      } catch (RocksDBException e) {
        throw new StorageException("read of error " + sequence + " of " + id, e);
      }
    } finally {
      uses.exit();
    }
  }

  @Override
  public long estimatedJobCount() {
    uses.enter();
    try {
      return db.getLongProperty(jobs, "rocksdb.estimate-num-keys");
    } catch (RocksDBException e) {
      return 0;
    } finally {
      uses.exit();
    }
  }

  /**
   * Bytes the stored data takes now: the live table files of every column family plus the write
   * buffers not yet flushed (X7 {@code sluice_storage_bytes}). Two property reads, no I/O; 0 once
   * the store is closing.
   */
  public long storedBytes() {
    try {
      uses.enter();
    } catch (StorageException closing) {
      return 0;
    }
    try {
      return db.getAggregatedLongProperty("rocksdb.live-sst-files-size")
          + db.getAggregatedLongProperty("rocksdb.cur-size-all-mem-tables");
    } catch (RocksDBException e) {
      return 0;
    } finally {
      uses.exit();
    }
  }

  /**
   * Hard-links the live table files and copies the rest into {@code dir}, after flushing the
   * memtables; writes go on meanwhile. Short, so closing simply waits for it.
   */
  @Override
  public void checkpoint(Path dir) {
    uses.enter();
    try (Checkpoint checkpoint = Checkpoint.create(db)) {
      checkpoint.createCheckpoint(dir.toString());
    } catch (RocksDBException e) {
      throw new StorageException("checkpoint into " + dir, e);
    } finally {
      uses.exit();
    }
  }

  /**
   * Compacts every column family down to its last level, rewriting even the last level's files
   * (those not just written by this compaction), so deletion tombstones are really dropped.
   * Background compactions and writes go on meanwhile. Closing the store cancels it.
   */
  @Override
  public void compact() {
    uses.enter();
    CompactRangeOptions options = new CompactRangeOptions()
        .setBottommostLevelCompaction(
            CompactRangeOptions.BottommostLevelCompaction.kForceOptimized)
        .setExclusiveManualCompaction(false);
    try {
      // Registered before the check, so that closing either cancels it or is seen by it.
      synchronized (compactions) {
        compactions.add(options);
      }
      for (ColumnFamilyHandle handle : handles) {
        uses.checkOpen();
        db.compactRange(handle, null, null, options);
      }
    } catch (RocksDBException e) {
      throw new StorageException("compaction", e);
    } finally {
      // Under the lock, so a close cancelling compactions never touches freed native memory.
      synchronized (compactions) {
        compactions.remove(options);
        options.close();
      }
      uses.exit();
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    uses.beginClosing();
    synchronized (compactions) {
      for (CompactRangeOptions compaction : compactions) {
        compaction.setCanceled(true);
      }
    }
    boolean unused;
    try {
      unused = uses.closeAndAwait(CLOSE_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      unused = false;
    }
    try {
      db.flushWal(true);
    } catch (RocksDBException e) {
      // Closing anyway: the WAL already holds every acknowledged write.
    }
    if (!unused) {
      // Closing the native handles under a read would crash the process; it is ending anyway.
      LOG.warn("storage still in use after {} ms; leaving it open", CLOSE_WAIT_MILLIS);
      return;
    }
    for (ColumnFamilyHandle handle : handles) {
      handle.close();
    }
    db.close();
    closeOptions();
  }

  private void closeOptions() {
    bufferedWrites.close();
    syncedWrites.close();
    dbOptions.close();
    familyOptions.close();
    bloomFilter.close();
    deletionCollector.close();
    cache.close();
  }
}
