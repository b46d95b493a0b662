package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import java.util.AbstractCollection;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Every job held, by id: an open-addressing table with the two halves of each id stored inline
 * next to each other. Looking a job up by id is on the path of every enqueue and every ack, and a
 * hash map of objects pays a cache miss for its bucket, one for its entry and one for the id
 * object before it reaches the job; here the id's halves share the first line read.
 *
 * <p>Linear probing, at most half full; removal shifts later entries of a run back instead of
 * leaving markers, so a table that churns through millions of jobs never degrades. Removal never
 * shrinks the table: {@link JobTable} asks for {@link #shrink} once it has stayed
 * {@link #oversized} for a while, so a drain does not rehash what is left at every halving and a
 * burst that follows soon after does not grow the table again. Owned by the engine thread.
 */
final class JobsById {
  private static final int MIN_CAPACITY = 1024;
  /** Two longs a slot: an array of 2^31 longs would be past what Java can index. */
  private static final int MAX_CAPACITY = 1 << 29;

  /** The id of slot {@code i} is {@code (keys[2i], keys[2i + 1])}; valid where a job is. */
  private long[] keys;
  private Job[] jobs;
  private int mask;
  private int size;
  private int modifications;

  JobsById() {
    this(0);
  }

  /** A table that holds {@code expected} jobs without growing. */
  JobsById(long expected) {
    allocate(capacityFor(expected));
  }

  private static int capacityFor(long expected) {
    long wanted = Math.max(MIN_CAPACITY, expected * 2);
    int capacity = Integer.highestOneBit((int) Math.min(MAX_CAPACITY, wanted));
    return capacity < wanted && capacity < MAX_CAPACITY ? capacity << 1 : capacity;
  }

  private void allocate(int capacity) {
    keys = new long[capacity * 2];
    jobs = new Job[capacity];
    mask = capacity - 1;
  }

  int size() {
    return size;
  }

  /** Slots in the table, held or not (for tests). */
  int capacity() {
    return jobs.length;
  }

  boolean isEmpty() {
    return size == 0;
  }

  Job get(JobId id) {
    int i = find(id.hi(), id.lo());
    return i < 0 ? null : jobs[i];
  }

  /** Adds the job, or replaces the one held under its id; returns the job replaced. */
  Job put(Job job) {
    long hi = job.id().hi();
    long lo = job.id().lo();
    int i = slot(hi, lo);
    for (; jobs[i] != null; i = (i + 1) & mask) {
      if (keys[2 * i] == hi && keys[2 * i + 1] == lo) {
        Job previous = jobs[i];
        jobs[i] = job;
        return previous;
      }
    }
    keys[2 * i] = hi;
    keys[2 * i + 1] = lo;
    jobs[i] = job;
    modifications++;
    if (++size * 2 > jobs.length) {
      grow();
    }
    return null;
  }

  /** Removes the job held under this id; returns it, or null when none is. */
  Job remove(JobId id) {
    int i = find(id.hi(), id.lo());
    if (i < 0) {
      return null;
    }
    Job job = jobs[i];
    closeGap(i);
    size--;
    modifications++;
    return job;
  }

  /** Under an eighth full, and larger than a table starts. */
  boolean oversized() {
    return size * 8L < jobs.length && jobs.length > MIN_CAPACITY;
  }

  /**
   * Rehashes into the smallest table that holds twice the jobs held at most half full, so the
   * jobs held can double before it must grow. At 10 million jobs the slots take 640 MiB: this is
   * how a drained burst gives them back.
   */
  void shrink() {
    int capacity = capacityFor(2L * size);
    if (capacity < jobs.length) {
      resize(capacity);
      modifications++;
    }
  }

  /** The slot holding this id, or -1. */
  private int find(long hi, long lo) {
    for (int i = slot(hi, lo); ; i = (i + 1) & mask) {
      if (jobs[i] == null) {
        return -1;
      }
      if (keys[2 * i] == hi && keys[2 * i + 1] == lo) {
        return i;
      }
    }
  }

  /**
   * Empties slot {@code gap}, moving back each later entry of its run that may no longer be
   * reachable from its home slot across the gap.
   */
  private void closeGap(int gap) {
    for (int i = (gap + 1) & mask; jobs[i] != null; i = (i + 1) & mask) {
      int home = slot(keys[2 * i], keys[2 * i + 1]);
      // The entry at i may move to the gap when its home is not in (gap, i], cyclically.
      boolean homeAfterGap = gap <= i ? gap < home && home <= i : gap < home || home <= i;
      if (!homeAfterGap) {
        keys[2 * gap] = keys[2 * i];
        keys[2 * gap + 1] = keys[2 * i + 1];
        jobs[gap] = jobs[i];
        gap = i;
      }
    }
    jobs[gap] = null;
  }

  private void grow() {
    if (jobs.length == MAX_CAPACITY) {
      throw new IllegalStateException("more than " + MAX_CAPACITY / 2 + " jobs held");
    }
    resize(jobs.length * 2);
  }

  private void resize(int capacity) {
    long[] oldKeys = keys;
    Job[] oldJobs = jobs;
    allocate(capacity);
    for (int j = 0; j < oldJobs.length; j++) {
      if (oldJobs[j] != null) {
        int i = slot(oldKeys[2 * j], oldKeys[2 * j + 1]);
        while (jobs[i] != null) {
          i = (i + 1) & mask;
        }
        keys[2 * i] = oldKeys[2 * j];
        keys[2 * i + 1] = oldKeys[2 * j + 1];
        jobs[i] = oldJobs[j];
      }
    }
  }

  /** Spreads every bit of both halves: sequential ids must not crowd into one run of slots. */
  private int slot(long hi, long lo) {
    long h = (hi * 0x9E3779B97F4A7C15L) ^ lo;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return (int) h & mask;
  }

  /** The jobs, in no particular order; iterating while the table changes fails fast. */
  Collection<Job> values() {
    return new AbstractCollection<>() {
      @Override
      public Iterator<Job> iterator() {
        return new Iterator<>() {
          private final int expectedModifications = modifications;
          private int next = advance(0);

          private int advance(int from) {
            int i = from;
            while (i < jobs.length && jobs[i] == null) {
              i++;
            }
            return i;
          }

          @Override
          public boolean hasNext() {
            return next < jobs.length;
          }

          @Override
          public Job next() {
            if (modifications != expectedModifications) {
              throw new ConcurrentModificationException();
            }
            if (next >= jobs.length) {
              throw new NoSuchElementException();
            }
            Job job = jobs[next];
            next = advance(next + 1);
            return job;
          }
        };
      }

      @Override
      public int size() {
        return size;
      }
    };
  }
}
