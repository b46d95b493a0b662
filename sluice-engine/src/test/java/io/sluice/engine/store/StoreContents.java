package io.sluice.engine.store;

import io.sluice.engine.Names;
import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexEntry.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Everything a {@link MemoryJobStore} holds, ordered as RocksDB's keys order it: jobs and error
 * records by id (unsigned, then attempt), names in UTF-8 byte order. Changed only while it is a
 * private copy inside a commit; once published it is never changed again, which is what makes
 * scans read one snapshot.
 */
final class StoreContents {
  /** Attempt numbers are stored as unsigned 32-bit values. */
  static final long MAX_SEQUENCE = 0xFFFFFFFFL;

  final TreeMap<JobId, JobSnapshot> jobs = new TreeMap<>();
  final Map<JobId, byte[]> payloads = new HashMap<>();
  /** The payloads records hold ({@link Mutation.PutJob#payloadInRecord}). */
  final Map<JobId, byte[]> recordPayloads = new HashMap<>();
  private final Map<JobId, TreeMap<Long, ErrorRecord>> errors = new HashMap<>();
  final TreeMap<String, BudgetView> budgets = new TreeMap<>(Names.BYTE_ORDER);
  final TreeMap<String, BucketState> bucketStates = new TreeMap<>(Names.BYTE_ORDER);
  final Map<Mutation.Pointer, TreeMap<String, JobId>> pointers =
      new EnumMap<>(Mutation.Pointer.class);
  final TreeMap<String, byte[]> cronGroups = new TreeMap<>(Names.BYTE_ORDER);
  /** The secondary index: job ids per queue, per type and per state class. */
  private final Map<String, TreeSet<JobId>> byQueue = new TreeMap<>(Names.BYTE_ORDER);
  private final Map<String, TreeSet<JobId>> byType = new TreeMap<>(Names.BYTE_ORDER);
  private final Map<State, TreeSet<JobId>> byState = new EnumMap<>(State.class);

  StoreContents() {
    for (Mutation.Pointer kind : Mutation.Pointer.values()) {
      pointers.put(kind, new TreeMap<>(Names.BYTE_ORDER));
    }
  }

  /** A deep copy; byte arrays are shared, since no one changes them once stored. */
  StoreContents copy() {
    StoreContents copy = new StoreContents();
    copy.jobs.putAll(jobs);
    copy.payloads.putAll(payloads);
    copy.recordPayloads.putAll(recordPayloads);
    errors.forEach((id, records) -> copy.errors.put(id, new TreeMap<>(records)));
    copy.budgets.putAll(budgets);
    copy.bucketStates.putAll(bucketStates);
    pointers.forEach((kind, keys) -> copy.pointers.get(kind).putAll(keys));
    copy.cronGroups.putAll(cronGroups);
    byQueue.forEach((queue, ids) -> copy.byQueue.put(queue, new TreeSet<>(ids)));
    byType.forEach((type, ids) -> copy.byType.put(type, new TreeSet<>(ids)));
    byState.forEach((state, ids) -> copy.byState.put(state, new TreeSet<>(ids)));
    return copy;
  }

  void apply(Mutation mutation) {
    if (mutation instanceof Mutation.PutJob put) {
      JobSnapshot job = put.job().withPayload(null);
      putRecordPayload(put);
      jobs.put(job.id(), job);
      reindex(job.id(), put.previous(), IndexEntry.of(job, put.previous()));
    } else if (mutation instanceof Mutation.PutPayload put) {
      payloads.put(put.id(), put.payload().clone());
    } else if (mutation instanceof Mutation.PutError put) {
      errors.computeIfAbsent(put.id(), id -> new TreeMap<>())
          .put(Integer.toUnsignedLong(put.error().sequence()), put.error());
    } else if (mutation instanceof Mutation.DeleteJob delete) {
      jobs.remove(delete.id());
      recordPayloads.remove(delete.id());
      if (!delete.payloadInRecord()) {
        payloads.remove(delete.id());
      }
      reindex(delete.id(), delete.indexed(), null);
      deleteErrors(delete.id(), delete.errorRecords());
    } else if (mutation instanceof Mutation.PutBudget put) {
      budgets.put(put.budget().key(), put.budget());
    } else if (mutation instanceof Mutation.DeleteBudget delete) {
      budgets.remove(delete.key());
      bucketStates.remove(delete.key());
    } else if (mutation instanceof Mutation.PutBucketState put) {
      bucketStates.put(put.key(), put.state());
    } else if (mutation instanceof Mutation.DeleteBucketState delete) {
      bucketStates.remove(delete.key());
    } else if (mutation instanceof Mutation.PutPointer put) {
      pointers.get(put.kind()).put(put.key(), Objects.requireNonNull(put.job()));
    } else if (mutation instanceof Mutation.DeletePointer delete) {
      pointers.get(delete.kind()).remove(delete.key());
    } else if (mutation instanceof Mutation.PutCronGroup put) {
      cronGroups.put(put.name(), put.record().clone());
    } else if (mutation instanceof Mutation.DeleteCronGroup delete) {
      cronGroups.remove(delete.name());
    }
  }

  /**
   * A record overwritten without its payload loses the one it held, as a RocksDB record would;
   * carrying over a payload the record does not hold fails the commit, as it does there.
   */
  private void putRecordPayload(Mutation.PutJob put) {
    JobId id = put.job().id();
    if (!put.payloadInRecord()) {
      recordPayloads.remove(id);
    } else if (put.payload() != null) {
      recordPayloads.put(id, put.payload().clone());
    } else if (!recordPayloads.containsKey(id)) {
      throw new IllegalStateException(
          "job " + id + " is to carry over the payload of its record, which holds none");
    }
  }

  /** Deletes sequences 1 to {@code count} only, as RocksDB deletes one key per sequence. */
  private void deleteErrors(JobId id, int count) {
    TreeMap<Long, ErrorRecord> records = errors.get(id);
    if (records != null && count >= 1) {
      records.subMap(1L, true, (long) count, true).clear();
      if (records.isEmpty()) {
        errors.remove(id);
      }
    }
  }

  /** Moves the job's index keys from {@code from} to {@code to}; null is "no keys". */
  private void reindex(JobId id, IndexEntry from, IndexEntry to) {
    move(byQueue, id, from == null ? null : from.queue(), to == null ? null : to.queue());
    move(byType, id, from == null ? null : from.type(), to == null ? null : to.type());
    move(byState, id, from == null ? null : from.state(), to == null ? null : to.state());
  }

  private static <K> void move(Map<K, TreeSet<JobId>> index, JobId id, K from, K to) {
    if (Objects.equals(from, to)) {
      return;
    }
    if (from != null) {
      TreeSet<JobId> ids = index.get(from);
      if (ids != null) {
        ids.remove(id);
        if (ids.isEmpty()) {
          index.remove(from);
        }
      }
    }
    if (to != null) {
      index.computeIfAbsent(to, key -> new TreeSet<>()).add(id);
    }
  }

  /** The error records of one job by sequence (empty when none). */
  NavigableMap<Long, ErrorRecord> errorsOf(JobId id) {
    TreeMap<Long, ErrorRecord> records = errors.get(id);
    return records == null ? Collections.emptyNavigableMap() : records;
  }

  /** The ids the index lists under {@code query}: each term a union, the terms intersected. */
  NavigableSet<JobId> indexed(IndexQuery query) {
    List<NavigableSet<JobId>> terms = new ArrayList<>(3);
    if (query.queues() != null) {
      terms.add(union(byQueue, query.queues()));
    }
    if (query.types() != null) {
      terms.add(union(byType, query.types()));
    }
    if (query.states() != null) {
      terms.add(union(byState, query.states()));
    }
    NavigableSet<JobId> matches = terms.get(0);
    for (NavigableSet<JobId> term : terms.subList(1, terms.size())) {
      matches.retainAll(term);
    }
    return matches;
  }

  private static <K> NavigableSet<JobId> union(Map<K, TreeSet<JobId>> index, Set<K> values) {
    NavigableSet<JobId> ids = new TreeSet<>();
    for (K value : values) {
      ids.addAll(index.getOrDefault(value, new TreeSet<>()));
    }
    return ids;
  }

  /** One line per job whose index keys are not exactly those its stored record gives. */
  List<String> indexDrift() {
    TreeSet<JobId> ids = new TreeSet<>(jobs.keySet());
    byQueue.values().forEach(ids::addAll);
    byType.values().forEach(ids::addAll);
    byState.values().forEach(ids::addAll);
    List<String> drift = new ArrayList<>();
    for (JobId id : ids) {
      JobSnapshot job = jobs.get(id);
      List<Object> expected = job == null ? List.of()
          : List.of(job.queue(), job.type(), State.of(job.status()));
      List<Object> actual = new ArrayList<>();
      actual.addAll(keysOf(byQueue, id));
      actual.addAll(keysOf(byType, id));
      actual.addAll(keysOf(byState, id));
      if (!actual.equals(expected)) {
        drift.add(id + ": record says " + expected + ", index holds " + actual);
      }
    }
    return drift;
  }

  private static <K> List<Object> keysOf(Map<K, TreeSet<JobId>> index, JobId id) {
    List<Object> keys = new ArrayList<>();
    index.forEach((key, ids) -> {
      if (ids.contains(id)) {
        keys.add(key);
      }
    });
    return keys;
  }
}
