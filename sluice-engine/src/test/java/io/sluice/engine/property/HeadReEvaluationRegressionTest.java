package io.sluice.engine.property;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Turn;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Shrunk counterexamples that {@link BudgetInvariantsPropertyTest} found in the engine as of
 * f52b8eb, kept as plain examples; e7dde79 fixed them.
 *
 * <p>The defect: the engine looked at a parked job again only on events of the budgets it
 * <em>heads</em> (a release, a policy change or a wake-up of that budget). A job that heads
 * budget {@code h} but waits on a budget {@code a} where another job is ahead of it was not looked
 * at when {@code a} gained tokens, so it stayed parked although BUDGETS.md §5.2 makes it eligible
 * ("a job bound to several budgets is eligible when it is the head of at least one of them and
 * all of its budgets can pay"), breaking DESIGN.md invariants 4 and 5 and §7's "parked jobs do
 * not wait out the old schedule".
 *
 * <p>Each example: budgets {@code a} (or rate budget {@code r}), {@code z} and {@code h}, one
 * worker on every queue. {@code P [z, a]} heads {@code a} but is blocked by {@code z}; {@code
 * J [h, a]} heads {@code h} and waits behind {@code P} in {@code a}. When {@code a} can pay
 * again, {@code J} must go at once: {@code P}'s blocking budget is {@code z}, which {@code J}
 * does not share.
 */
class HeadReEvaluationRegressionTest {
  @Test
  void aReleaseOnABudgetTheJobDoesNotHeadDispatchesIt() {
    Loop loop = new Loop();
    loop.budget("a", concurrency(1));
    loop.budget("z", concurrency(1));
    loop.budget("h", concurrency(1));
    loop.openWorker();
    JobId x = loop.enqueue("X", 0, bind("a"));
    loop.enqueue("Y", 0, bind("z"));
    assertThat(loop.deliveredNames()).containsExactly("X", "Y"); // a and z now empty
    loop.enqueue("P", 0, bind("z"), bind("a")); // heads a and z, blocked
    loop.enqueue("J", 1, bind("h"), bind("a")); // heads h, behind P in a, blocked by a
    assertThat(loop.deliveredNames()).containsExactly("X", "Y");

    loop.ack(x); // a can pay again; P is still blocked by z

    // Before e7dde79 nothing was delivered: J waited for an event on h.
    assertThat(loop.deliveredNames()).containsExactly("X", "Y", "J");
  }

  @Test
  void wideningABudgetTheJobDoesNotHeadDispatchesIt() {
    Loop loop = new Loop();
    loop.budget("a", concurrency(1));
    loop.budget("z", concurrency(1));
    loop.budget("h", concurrency(1));
    loop.openWorker();
    loop.enqueue("X", 0, bind("a"));
    loop.enqueue("Y", 0, bind("z"));
    loop.enqueue("P", 0, bind("z"), bind("a"));
    loop.enqueue("J", 1, bind("h"), bind("a"));
    assertThat(loop.deliveredNames()).containsExactly("X", "Y");

    loop.budget("a", concurrency(2)); // §7: "widening hands the new slots out at once"

    // Before e7dde79 nothing was delivered.
    assertThat(loop.deliveredNames()).containsExactly("X", "Y", "J");
  }

  @Test
  void aFasterRateOnABudgetTheJobDoesNotHeadReArmsItsWakeUp() {
    Loop loop = new Loop();
    long start = loop.now;
    loop.budget("r", rate(1, 60_000));
    loop.budget("z", concurrency(1));
    loop.budget("h", concurrency(1));
    loop.openWorker();
    loop.enqueue("X", 0, bind("r"));
    loop.enqueue("Y", 0, bind("z"));
    loop.enqueue("P", 0, bind("z"), bind("r"));
    loop.enqueue("J", 1, bind("h"), bind("r")); // r's next token is at start + 60 s
    assertThat(loop.deliveredNames()).containsExactly("X", "Y");

    loop.budget("r", rate(1, 10)); // §7: "re-arms the wake-up timer immediately"

    // Before e7dde79 the engine's next deadline stayed at start + 60 000 ms and nothing was
    // delivered at start + 10 ms: J waited out the old schedule.
    assertThat(loop.engine.nextDeadlineMs() - start).isEqualTo(10);
    loop.advanceTo(start + 10); // r holds a token again
    assertThat(loop.deliveredNames()).containsExactly("X", "Y", "J");
  }

  // ---- a minimal engine loop on a hand-moved clock -------------------------------------------

  private static PolicySpec concurrency(long allocation) {
    return new PolicySpec(allocation, "while_in_flight", null, null);
  }

  private static PolicySpec rate(long allocation, long durationMs) {
    return new PolicySpec(allocation, "time_based", durationMs, null);
  }

  private static BindingRequest bind(String key) {
    return new BindingRequest(key, 1L, null);
  }

  /** Runs every call as one {@code EngineLoop} turn: command, runDue, commit, dispatch. */
  private static final class Loop {
    final Engine engine = new Engine(EngineConfig.defaults());
    final JobIdGenerator ids = new JobIdGenerator();
    final List<JobSnapshot> delivered = new ArrayList<>();
    final List<JobId> idsInOrder = new ArrayList<>();
    final List<String> namesInOrder = new ArrayList<>();
    long now = EngineScenario.START_MS;

    void turn() {
      engine.runDue(now);
      Turn turn = engine.takeTurn();
      engine.committed(turn.newJobs(), now);
      engine.dispatch(now);
    }

    void budget(String key, PolicySpec spec) {
      engine.budgetAdmin().put(key, spec, now);
      turn();
    }

    void openWorker() {
      engine.openSession(null, 0, delivered::addAll);
      turn();
    }

    JobId enqueue(String name, int priority, BindingRequest... bindings) {
      JobId id = ids.next(now);
      engine.enqueue(List.of(new NewJob(id, "repro", "q", priority, null, null, null, null,
          "{}".getBytes(StandardCharsets.UTF_8), List.of(bindings))), now);
      idsInOrder.add(id);
      namesInOrder.add(name);
      turn();
      return id;
    }

    void ack(JobId id) {
      engine.complete(id, now);
      turn();
    }

    /** Moves the clock, waking at every engine deadline on the way like the idle loop. */
    void advanceTo(long target) {
      while (engine.nextDeadlineMs() <= target) {
        now = Math.max(now + 1, engine.nextDeadlineMs());
        turn();
      }
      now = target;
      turn();
    }

    List<String> deliveredNames() {
      return delivered.stream().map(s -> namesInOrder.get(idsInOrder.indexOf(s.id()))).toList();
    }
  }
}
