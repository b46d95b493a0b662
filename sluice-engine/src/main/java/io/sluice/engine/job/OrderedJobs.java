package io.sluice.engine.job;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * A set of jobs in a fixed order, built for the way job queues fill: ids are generated in
 * increasing order, so most jobs arrive after every job already held. Those go to the end of a
 * sorted run (an array ring: no allocation, no rebalancing, no comparisons but one); only jobs
 * arriving out of order (retries, requeues, earlier priorities) go to a tree. Every job in the
 * tree comes before every job in the run. A removal or insertion inside the run moves the run
 * into the tree first, so each job is moved at most once per insertion and every operation stays
 * O(log n) amortized.
 *
 * <p>Jobs equal under the order are the same job. Not thread-safe (the engine thread owns it).
 */
public final class OrderedJobs {
  private final Comparator<Job> order;
  private final TreeSet<Job> tree;
  private static final int SMALL_RUN = 16;

  private Job[] run = new Job[SMALL_RUN];
  private int runHead;
  private int runSize;

  public OrderedJobs(Comparator<Job> order) {
    this.order = order;
    this.tree = new TreeSet<>(order);
  }

  /** Adds the job; false if it (or a job equal under the order) is already here. */
  public boolean add(Job job) {
    if (runSize > 0) {
      int vsLast = order.compare(job, runAt(runSize - 1));
      if (vsLast > 0) {
        appendToRun(job);
        return true;
      }
      if (vsLast == 0) {
        return false;
      }
      int vsFirst = order.compare(job, runAt(0));
      if (vsFirst == 0) {
        return false;
      }
      if (vsFirst > 0) {
        moveRunToTree();
      }
      return tree.add(job);
    }
    if (tree.isEmpty() || order.compare(job, tree.last()) > 0) {
      appendToRun(job);
      return true;
    }
    return tree.add(job);
  }

  /** Removes the job; false if it is not here. */
  public boolean remove(Job job) {
    if (tree.remove(job)) {
      return true;
    }
    if (runSize == 0) {
      return false;
    }
    int vsFirst = order.compare(job, runAt(0));
    if (vsFirst == 0) {
      run[runHead] = null;
      runHead = (runHead + 1) & (run.length - 1);
      shrinkRun();
      return true;
    }
    int vsLast = order.compare(job, runAt(runSize - 1));
    if (vsLast == 0) {
      run[(runHead + runSize - 1) & (run.length - 1)] = null;
      shrinkRun();
      return true;
    }
    if (vsFirst < 0 || vsLast > 0) {
      return false;
    }
    moveRunToTree();
    return tree.remove(job);
  }

  /** The first job in order, or null when empty. */
  public Job first() {
    if (!tree.isEmpty()) {
      return tree.first();
    }
    return runSize == 0 ? null : runAt(0);
  }

  /** The first job strictly after {@code after} in order, or null. */
  public Job higher(Job after) {
    Job inTree = tree.higher(after);
    if (inTree != null) {
      return inTree;
    }
    int low = 0;
    int high = runSize;
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (order.compare(runAt(mid), after) <= 0) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low < runSize ? runAt(low) : null;
  }

  /** Every job, in order (a copy). */
  public List<Job> toList() {
    List<Job> all = new ArrayList<>(tree);
    for (int i = 0; i < runSize; i++) {
      all.add(runAt(i));
    }
    return all;
  }

  public boolean isEmpty() {
    return runSize == 0 && tree.isEmpty();
  }

  public int size() {
    return runSize + tree.size();
  }

  private Job runAt(int index) {
    return run[(runHead + index) & (run.length - 1)];
  }

  private void appendToRun(Job job) {
    if (runSize == run.length) {
      Job[] grown = new Job[run.length * 2];
      for (int i = 0; i < runSize; i++) {
        grown[i] = runAt(i);
      }
      run = grown;
      runHead = 0;
    }
    run[(runHead + runSize) & (run.length - 1)] = job;
    runSize++;
  }

  private void shrinkRun() {
    runSize--;
    if (runSize == 0) {
      clearRun(); // a drained backlog gives its array back
    }
  }

  private void moveRunToTree() {
    for (int i = 0; i < runSize; i++) {
      tree.add(runAt(i));
    }
    clearRun();
  }

  private void clearRun() {
    if (run.length > SMALL_RUN) {
      run = new Job[SMALL_RUN];
    } else {
      Arrays.fill(run, null);
    }
    runHead = 0;
    runSize = 0;
  }
}
