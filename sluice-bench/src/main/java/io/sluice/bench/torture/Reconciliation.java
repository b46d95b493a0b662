package io.sluice.bench.torture;

import io.sluice.bench.torture.Ledger.Event;
import io.sluice.bench.torture.Ledger.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a finished run's ledger against what durability promises (DESIGN.md invariant 7: an
 * acknowledged enqueue, ack or failure is in the write-ahead log, so no crash loses it) and what
 * at-least-once delivery allows. Pure: built once from the events and the jobs still stored after
 * the final drain.
 *
 * <p>Event order: for one job, event A happened before event B when A's server generation is
 * older, or the generation is the same and the client observed A first. Across generations this
 * is the server's order whatever the client's timing; within one, a job is on at most one stream
 * and is acked by the worker that received it, so a delivery the client observes after an
 * acknowledged ack was sent after that ack too.
 *
 * <p>Must be zero:
 * <ul>
 *   <li>lost acknowledged enqueues: 201 received, never delivered, not stored at the end;
 *   <li>vanished delivered jobs: delivered, never acked (no 204, no ack cut off by a crash), not
 *       stored at the end;
 *   <li>acknowledged then redelivered: a delivery after a 204 for the job;
 *   <li>lost acknowledged failures: a delivery after a 200 failure answer showing fewer attempts
 *       than that answer did;
 *   <li>jobs stored after the final drain, this run's or not;
 *   <li>jobs with two server ids (one payload enqueued once must be one job);
 *   <li>deliveries of jobs that are not this run's.
 * </ul>
 * A job delivered again with as many attempts as before was in flight at a crash: allowed, a
 * redelivery. One delivered with more attempts is a retry after a failure, whether or not the
 * failure's answer reached the client first (the retried job can arrive on its stream before the
 * answer arrives on the other connection). Within one server life a redelivery should not happen,
 * as no take stream closes before the crash; it is counted separately.
 */
final class Reconciliation {

  /** One generation's figures, for the per-cycle table. */
  record GenCounts(int gen, int enqueuesAcked, int enqueuesCut, int deliveries, int redeliveries,
      int retries, int acksAcked, int acksCut, int failuresAcked, int failuresCut, int violations) {}

  private static final Comparator<Event> JOB_ORDER = Comparator.comparingInt(Event::seq)
      .thenComparingInt(Event::gen)
      .thenComparingLong(Event::stamp);

  private final int sent;
  private int enqueuesAcked;
  private int enqueuesUnanswered;
  private int enqueuesRejected;
  private int storedUnacknowledged;
  private int deliveries;
  private int jobsDelivered;
  private int jobsDeliveredMoreThanOnce;
  private int jobsRedelivered;
  private int redeliveries;
  private int redeliveriesWithinOneLife;
  private int retries;
  private int acksAcked;
  private int acksUnanswered;
  private int acksRejected;
  private int failuresAcked;
  private int foreignDeliveries;
  private int foreignPresent;
  private final Set<Integer> lostEnqueues = new TreeSet<>();
  private final Set<Integer> vanished = new TreeSet<>();
  private final Set<Integer> ackedThenRedelivered = new TreeSet<>();
  private final Set<Integer> lostFailures = new TreeSet<>();
  private final Set<Integer> presentAtEnd = new TreeSet<>();
  private final Set<Integer> twoIds = new TreeSet<>();
  private final Map<Integer, List<Event>> offenderEvents = new HashMap<>();
  private final Map<Integer, PresentJob> present = new HashMap<>();
  private final Map<Integer, Tally> perGen = new HashMap<>();

  private Reconciliation(int sent) {
    this.sent = sent;
  }

  static Reconciliation of(List<Event> events, int sent, List<PresentJob> stored) {
    Reconciliation r = new Reconciliation(sent);
    for (PresentJob p : stored) {
      if (p.seq() >= 0 && p.seq() < sent) {
        r.present.put(p.seq(), p);
        r.presentAtEnd.add(p.seq());
      } else {
        r.foreignPresent++;
      }
    }
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(JOB_ORDER);
    int n = sorted.size();
    int i = 0;
    for (; i < n && sorted.get(i).seq() < 0; i++) {
      r.countForeign(sorted.get(i));
    }
    for (int seq = 0; seq < sent; seq++) {
      int j = i;
      while (j < n && sorted.get(j).seq() == seq) {
        j++;
      }
      r.checkJob(seq, sorted.subList(i, j));
      i = j;
    }
    for (; i < n; i++) {
      r.countForeign(sorted.get(i));
    }
    return r;
  }

  private void countForeign(Event e) {
    if (e.kind() == Kind.DELIVERED) {
      foreignDeliveries++;
      deliveries++;
      gen(e.gen()).deliveries++;
    }
  }

  private void checkJob(int seq, List<Event> history) {
    boolean enqueueAcked = false;
    int enqueueAckGen = 0;
    boolean ackAcked = false;
    int ackGen = 0;
    boolean ackInDoubt = false;
    int acknowledgedAttempts = -1;
    int failureAckGen = 0;
    int delivered = 0;
    int lastDeliveryGen = 0;
    int lastDeliveryAttempts = 0;
    boolean redelivered = false;
    Set<String> ids = new HashSet<>();
    for (Event e : history) {
      Tally g = gen(e.gen());
      switch (e.kind()) {
        case ENQUEUE_ACKED -> {
          enqueueAcked = true;
          enqueueAckGen = e.gen();
          ids.add(e.jobId());
          enqueuesAcked++;
          g.enqueuesAcked++;
        }
        case ENQUEUE_UNANSWERED -> {
          enqueuesUnanswered++;
          g.enqueuesCut++;
        }
        case ENQUEUE_REJECTED -> {
          enqueuesRejected++;
          g.enqueuesCut++;
        }
        case DELIVERED -> {
          ids.add(e.jobId());
          deliveries++;
          g.deliveries++;
          if (ackAcked) {
            flag(ackedThenRedelivered, seq, history, ackGen);
          }
          if (e.detail() < acknowledgedAttempts) {
            flag(lostFailures, seq, history, failureAckGen);
          }
          if (delivered > 0) {
            if (e.detail() > lastDeliveryAttempts) {
              retries++;
              g.retries++;
            } else {
              redeliveries++;
              redelivered = true;
              g.redeliveries++;
              if (e.gen() == lastDeliveryGen) {
                redeliveriesWithinOneLife++;
              }
            }
          }
          delivered++;
          lastDeliveryGen = e.gen();
          lastDeliveryAttempts = e.detail();
        }
        case ACK_ACKED -> {
          if (!ackAcked) {
            ackAcked = true;
            ackGen = e.gen();
          }
          acksAcked++;
          g.acksAcked++;
        }
        case ACK_UNANSWERED -> {
          ackInDoubt = true;
          acksUnanswered++;
          g.acksCut++;
        }
        case ACK_REJECTED -> {
          acksRejected++;
          g.acksCut++;
        }
        case FAILURE_ACKED -> {
          if (e.detail() > acknowledgedAttempts) {
            acknowledgedAttempts = e.detail();
            failureAckGen = e.gen();
          }
          failuresAcked++;
          g.failuresAcked++;
        }
        case FAILURE_UNANSWERED, FAILURE_REJECTED -> g.failuresCut++;
        default -> throw new IllegalStateException(e.kind().name());
      }
    }
    boolean stored = present.containsKey(seq);
    if (delivered > 0) {
      jobsDelivered++;
    }
    if (delivered > 1) {
      jobsDeliveredMoreThanOnce++;
    }
    if (redelivered) {
      jobsRedelivered++;
    }
    if (!enqueueAcked && (delivered > 0 || stored)) {
      storedUnacknowledged++;
    }
    if (enqueueAcked && delivered == 0 && !stored) {
      flag(lostEnqueues, seq, history, enqueueAckGen);
    }
    if (delivered > 0 && !ackAcked && !ackInDoubt && !stored) {
      flag(vanished, seq, history, lastDeliveryGen);
    }
    if (ids.size() > 1) {
      flag(twoIds, seq, history, lastDeliveryGen);
    }
    if (stored) {
      offenderEvents.put(seq, history);
    }
  }

  private void flag(Set<Integer> rule, int seq, List<Event> history, int gen) {
    if (rule.add(seq)) {
      gen(gen).violations++;
    }
    offenderEvents.put(seq, history);
  }

  private Tally gen(int gen) {
    return perGen.computeIfAbsent(gen, k -> new Tally());
  }

  /** Label to value, in report order; every value must be zero. */
  Map<String, Integer> mustBeZero() {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("lost acknowledged enqueues", lostEnqueues.size());
    m.put("vanished delivered jobs", vanished.size());
    m.put("acknowledged then redelivered", ackedThenRedelivered.size());
    m.put("lost acknowledged failures", lostFailures.size());
    m.put("jobs still stored after the drain", presentAtEnd.size() + foreignPresent);
    m.put("jobs with two ids", twoIds.size());
    m.put("deliveries of unknown jobs", foreignDeliveries);
    return m;
  }

  boolean ok() {
    return mustBeZero().values().stream().allMatch(v -> v == 0);
  }

  /** Label to value, in report order: what happened, allowed either way. */
  Map<String, Integer> figures() {
    Map<String, Integer> m = new LinkedHashMap<>();
    m.put("enqueues sent", sent);
    m.put("enqueues acknowledged", enqueuesAcked);
    m.put("enqueues cut off by a crash", enqueuesUnanswered);
    m.put("enqueues rejected", enqueuesRejected);
    m.put("unacknowledged enqueues stored anyway", storedUnacknowledged);
    m.put("deliveries", deliveries);
    m.put("jobs delivered", jobsDelivered);
    m.put("jobs delivered more than once", jobsDeliveredMoreThanOnce);
    m.put("jobs redelivered (same attempts as before)", jobsRedelivered);
    m.put("redeliveries", redeliveries);
    m.put("redeliveries within one server life", redeliveriesWithinOneLife);
    m.put("retries (more attempts than before)", retries);
    m.put("acks acknowledged", acksAcked);
    m.put("acks cut off by a crash", acksUnanswered);
    m.put("acks refused", acksRejected);
    m.put("failures acknowledged", failuresAcked);
    return m;
  }

  /** Payload sequence numbers of jobs breaking a rule, ascending. */
  List<Integer> offenders() {
    return new ArrayList<>(new TreeSet<>(offenderEvents.keySet()));
  }

  /** Which rules job {@code seq} breaks, e.g. "acknowledged then redelivered". */
  List<String> rulesBrokenBy(int seq) {
    List<String> rules = new ArrayList<>();
    addIf(rules, lostEnqueues, seq, "lost acknowledged enqueue");
    addIf(rules, vanished, seq, "vanished after delivery");
    addIf(rules, ackedThenRedelivered, seq, "acknowledged then redelivered");
    addIf(rules, lostFailures, seq, "lost acknowledged failure");
    addIf(rules, presentAtEnd, seq, "still stored after the drain (" + describe(present.get(seq)) + ")");
    addIf(rules, twoIds, seq, "two ids");
    return rules;
  }

  /** The ledger's events for an offending job, in job order. */
  List<Event> history(int seq) {
    return offenderEvents.getOrDefault(seq, List.of());
  }

  /** Figures for generation {@code gen}; zeros when nothing happened in it. */
  GenCounts genCounts(int gen) {
    Tally t = perGen.getOrDefault(gen, new Tally());
    return new GenCounts(gen, t.enqueuesAcked, t.enqueuesCut, t.deliveries, t.redeliveries, t.retries,
        t.acksAcked, t.acksCut, t.failuresAcked, t.failuresCut, t.violations);
  }

  private static void addIf(List<String> rules, Set<Integer> set, int seq, String label) {
    if (set.contains(seq)) {
      rules.add(label);
    }
  }

  private static String describe(PresentJob p) {
    return p == null ? "" : "id " + p.id() + ", status " + p.status() + ", attempts " + p.attempts();
  }

  /**
   * One generation's counters while the events are walked. A violation counts in the generation
   * whose crash should not have caused it: where the lost answer was given.
   */
  private static final class Tally {
    int enqueuesAcked;
    int enqueuesCut;
    int deliveries;
    int redeliveries;
    int retries;
    int acksAcked;
    int acksCut;
    int failuresAcked;
    int failuresCut;
    int violations;
  }
}
