package io.sluice.engine.job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A set of jobs in a fixed order, each with a cost, that also answers "how many jobs, of what
 * total cost, come before this one?" in logarithmic time: a treap whose nodes carry the size and
 * cost sum of their subtree. Used for budget waiting queues, where a job's rank is part of the
 * answer to "why is this job waiting?".
 *
 * <p>Jobs equal under the order are the same job. Not thread-safe (the engine thread owns it).
 */
public final class RankedJobs {
  /** Jobs before a given one, and their summed cost. */
  public record Ahead(long jobs, long cost) {
    public static final Ahead NONE = new Ahead(0, 0);

    public Ahead plus(Ahead other) {
      return new Ahead(jobs + other.jobs, cost + other.cost);
    }
  }

  private static final class Node {
    final Job job;
    final long cost;
    final int priority;
    Node left;
    Node right;
    int size = 1;
    long costSum;

    Node(Job job, long cost, int priority) {
      this.job = job;
      this.cost = cost;
      this.priority = priority;
      this.costSum = cost;
    }

    void update() {
      size = 1 + size(left) + size(right);
      costSum = cost + costSum(left) + costSum(right);
    }
  }

  private final Comparator<Job> order;
  private Node root;

  public RankedJobs(Comparator<Job> order) {
    this.order = order;
  }

  /**
   * A job's treap priority: its id, mixed (the finaliser of SplitMix64) so that ids made in order
   * spread like random numbers. Derived rather than drawn, so the shape repeats run to run and a
   * treap holds no generator of its own (a partitioned budget holds a million, X3).
   */
  private static int heapPriority(Job job) {
    long z = job.id().hi() * 31 + job.id().lo();
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (int) (z ^ (z >>> 31));
  }

  /** Adds the job with its cost; false if it (or a job equal under the order) is already here. */
  public boolean add(Job job, long cost) {
    if (contains(job)) {
      return false;
    }
    Node[] parts = split(root, job);
    root = merge(merge(parts[0], new Node(job, cost, heapPriority(job))), parts[1]);
    return true;
  }

  /** Removes the job; false if it is not here. */
  public boolean remove(Job job) {
    if (!contains(job)) {
      return false;
    }
    root = remove(root, job);
    return true;
  }

  private Node remove(Node node, Job job) {
    int c = order.compare(job, node.job);
    if (c == 0) {
      return merge(node.left, node.right);
    }
    if (c < 0) {
      node.left = remove(node.left, job);
    } else {
      node.right = remove(node.right, job);
    }
    node.update();
    return node;
  }

  public boolean contains(Job job) {
    Node node = root;
    while (node != null) {
      int c = order.compare(job, node.job);
      if (c == 0) {
        return true;
      }
      node = c < 0 ? node.left : node.right;
    }
    return false;
  }

  /** The first job in order, or null when empty. */
  public Job first() {
    Node node = root;
    if (node == null) {
      return null;
    }
    while (node.left != null) {
      node = node.left;
    }
    return node.job;
  }

  /** The jobs strictly before {@code job} in order (it need not be here), and their cost. */
  public Ahead before(Job job) {
    long jobs = 0;
    long cost = 0;
    Node node = root;
    while (node != null) {
      if (order.compare(node.job, job) < 0) {
        jobs += 1 + size(node.left);
        cost += node.cost + costSum(node.left);
        node = node.right;
      } else {
        node = node.left;
      }
    }
    return new Ahead(jobs, cost);
  }

  public boolean isEmpty() {
    return root == null;
  }

  public int size() {
    return size(root);
  }

  /** The summed cost of every job here. */
  public long cost() {
    return costSum(root);
  }

  /** Every job, in order (a copy). */
  public List<Job> toList() {
    List<Job> all = new ArrayList<>(size());
    List<Node> path = new ArrayList<>();
    Node node = root;
    while (node != null || !path.isEmpty()) {
      while (node != null) {
        path.add(node);
        node = node.left;
      }
      node = path.remove(path.size() - 1);
      all.add(node.job);
      node = node.right;
    }
    return all;
  }

  /** {left: jobs before {@code job}, right: the rest}. */
  private Node[] split(Node node, Job job) {
    if (node == null) {
      return new Node[] {null, null};
    }
    if (order.compare(node.job, job) < 0) {
      Node[] parts = split(node.right, job);
      node.right = parts[0];
      node.update();
      return new Node[] {node, parts[1]};
    }
    Node[] parts = split(node.left, job);
    node.left = parts[1];
    node.update();
    return new Node[] {parts[0], node};
  }

  /** Joins two treaps where every job of {@code a} comes before every job of {@code b}. */
  private static Node merge(Node a, Node b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    if (a.priority > b.priority) {
      a.right = merge(a.right, b);
      a.update();
      return a;
    }
    b.left = merge(a, b.left);
    b.update();
    return b;
  }

  private static int size(Node node) {
    return node == null ? 0 : node.size;
  }

  private static long costSum(Node node) {
    return node == null ? 0 : node.costSum;
  }
}
