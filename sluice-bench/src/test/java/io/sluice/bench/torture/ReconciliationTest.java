package io.sluice.bench.torture;

import static io.sluice.bench.torture.Ledger.Kind.ACK_ACKED;
import static io.sluice.bench.torture.Ledger.Kind.ACK_UNANSWERED;
import static io.sluice.bench.torture.Ledger.Kind.DELIVERED;
import static io.sluice.bench.torture.Ledger.Kind.ENQUEUE_ACKED;
import static io.sluice.bench.torture.Ledger.Kind.ENQUEUE_UNANSWERED;
import static io.sluice.bench.torture.Ledger.Kind.FAILURE_ACKED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ReconciliationTest {

  private final Ledger ledger = new Ledger();

  private int job() {
    return ledger.reserve(1);
  }

  private Reconciliation reconcile(PresentJob... stored) {
    return Reconciliation.of(ledger.events(), ledger.sent(), List.of(stored));
  }

  private static Map<String, Integer> zeroesExcept(String label, int value) {
    Map<String, Integer> expected = new LinkedHashMap<>();
    for (String l : List.of("lost acknowledged enqueues", "vanished delivered jobs", "acknowledged then redelivered",
        "lost acknowledged failures", "jobs still stored after the drain", "jobs with two ids",
        "deliveries of unknown jobs")) {
      expected.put(l, l.equals(label) ? value : 0);
    }
    return expected;
  }

  @Test
  void passesAJobEnqueuedDeliveredAndAcked() {
    int s = job();
    ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
    ledger.record(1, DELIVERED, s, "j", 0);
    ledger.record(1, ACK_ACKED, s, "j", 0);

    Reconciliation r = reconcile();

    assertThat(r.ok()).isTrue();
    assertThat(r.offenders()).isEmpty();
    assertThat(r.figures()).containsEntry("enqueues acknowledged", 1).containsEntry("acks acknowledged", 1)
        .containsEntry("redeliveries", 0);
  }

  @Nested
  class Enqueues {
    @Test
    void flagsAnAcknowledgedEnqueueNeverDeliveredAndNoLongerStored() {
      int s = job();
      ledger.record(3, ENQUEUE_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.mustBeZero()).isEqualTo(zeroesExcept("lost acknowledged enqueues", 1));
      assertThat(r.offenders()).containsExactly(s);
      assertThat(r.rulesBrokenBy(s)).containsExactly("lost acknowledged enqueue");
      assertThat(r.genCounts(3).violations()).isEqualTo(1);
    }

    @Test
    void acceptsAnEnqueueCutOffByTheCrashThatNeverArrived() {
      int s = job();
      ledger.record(1, ENQUEUE_UNANSWERED, s, null, 0);

      Reconciliation r = reconcile();

      assertThat(r.ok()).isTrue();
      assertThat(r.figures()).containsEntry("enqueues cut off by a crash", 1)
          .containsEntry("unacknowledged enqueues stored anyway", 0);
    }

    @Test
    void countsAnEnqueueCutOffByTheCrashThatWasStoredAnyway() {
      int s = job();
      ledger.record(1, ENQUEUE_UNANSWERED, s, null, 0);
      ledger.record(2, DELIVERED, s, "j", 0);
      ledger.record(2, ACK_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.ok()).isTrue();
      assertThat(r.figures()).containsEntry("unacknowledged enqueues stored anyway", 1);
    }

    @Test
    void flagsOnePayloadThatBecameTwoJobs() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j1", 0);
      ledger.record(1, DELIVERED, s, "j2", 0);
      ledger.record(1, ACK_ACKED, s, "j2", 0);

      assertThat(reconcile().mustBeZero()).isEqualTo(zeroesExcept("jobs with two ids", 1));
    }
  }

  @Nested
  class Acks {
    @Test
    void flagsADeliveryAfterAnAcknowledgedAckInALaterGeneration() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, ACK_ACKED, s, "j", 0);
      ledger.record(2, DELIVERED, s, "j", 0);
      ledger.record(2, ACK_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.mustBeZero()).isEqualTo(zeroesExcept("acknowledged then redelivered", 1));
      assertThat(r.genCounts(1).violations()).isEqualTo(1);
      assertThat(r.history(s)).extracting(Ledger.Event::kind)
          .containsExactly(ENQUEUE_ACKED, DELIVERED, ACK_ACKED, DELIVERED, ACK_ACKED);
    }

    @Test
    void ordersByGenerationBeforeTheClientsObservation() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(2, DELIVERED, s, "j", 0);
      ledger.record(1, ACK_ACKED, s, "j", 0);

      assertThat(reconcile().mustBeZero()).isEqualTo(zeroesExcept("acknowledged then redelivered", 1));
    }

    @Test
    void acceptsARedeliveryOfAJobInFlightAtTheCrash() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(2, DELIVERED, s, "j", 0);
      ledger.record(2, ACK_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.ok()).isTrue();
      assertThat(r.figures()).containsEntry("jobs delivered more than once", 1).containsEntry("redeliveries", 1)
          .containsEntry("redeliveries within one server life", 0);
      assertThat(r.genCounts(2).redeliveries()).isEqualTo(1);
    }

    @Test
    void countsARedeliveryWithinOneServerLifeSeparately() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, ACK_ACKED, s, "j", 0);

      assertThat(reconcile().figures()).containsEntry("redeliveries within one server life", 1);
    }

    @Test
    void flagsADeliveredJobThatVanishedWithoutAnAck() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);

      assertThat(reconcile().mustBeZero()).isEqualTo(zeroesExcept("vanished delivered jobs", 1));
    }

    @Test
    void acceptsAJobGoneAfterAnAckCutOffByTheCrash() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, ACK_UNANSWERED, s, "j", 0);

      assertThat(reconcile().ok()).isTrue();
    }
  }

  @Nested
  class Failures {
    @Test
    void countsADeliveryWithMoreAttemptsAsARetryEvenBeforeTheFailureAnswer() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 1);
      ledger.record(1, FAILURE_ACKED, s, "j", 1);
      ledger.record(1, ACK_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.ok()).isTrue();
      assertThat(r.figures()).containsEntry("retries (more attempts than before)", 1)
          .containsEntry("redeliveries", 0);
    }

    @Test
    void flagsADeliveryWithFewerAttemptsThanAnAcknowledgedFailure() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);
      ledger.record(1, DELIVERED, s, "j", 0);
      ledger.record(1, FAILURE_ACKED, s, "j", 1);
      ledger.record(2, DELIVERED, s, "j", 0);
      ledger.record(2, ACK_ACKED, s, "j", 0);

      Reconciliation r = reconcile();

      assertThat(r.mustBeZero()).isEqualTo(zeroesExcept("lost acknowledged failures", 1));
      assertThat(r.genCounts(1).violations()).isEqualTo(1);
    }
  }

  @Nested
  class TheEnd {
    @Test
    void flagsJobsStillStoredAfterTheDrainOursOrNot() {
      int s = job();
      ledger.record(1, ENQUEUE_ACKED, s, "j", 0);

      Reconciliation r = reconcile(new PresentJob("j", s, "ready", 0), new PresentJob("x", -1, "ready", 0));

      assertThat(r.mustBeZero()).isEqualTo(zeroesExcept("jobs still stored after the drain", 2));
      assertThat(r.rulesBrokenBy(s)).containsExactly("still stored after the drain (id j, status ready, attempts 0)");
    }

    @Test
    void flagsDeliveriesOfJobsThatAreNotThisRuns() {
      ledger.record(1, DELIVERED, -1, "x", 0);
      ledger.record(1, ACK_ACKED, -1, "x", 0);

      Reconciliation r = reconcile();

      assertThat(r.mustBeZero()).isEqualTo(zeroesExcept("deliveries of unknown jobs", 1));
      assertThat(r.genCounts(1).deliveries()).isEqualTo(1);
    }
  }
}
