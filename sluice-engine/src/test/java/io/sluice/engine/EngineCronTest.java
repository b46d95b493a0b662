package io.sluice.engine;

import static io.sluice.engine.CronFixture.at;
import static io.sluice.engine.CronFixture.entry;
import static io.sluice.engine.CronFixture.group;
import static io.sluice.engine.CronFixture.template;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.Mutation;
import java.time.ZoneOffset;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/** Cron firing wired into the engine: turns, timers, budgets and reset. */
class EngineCronTest {
  static final String EVERY_SECOND = "* * * * * *";
  static final long T0 = at("2024-01-15T00:30:00.200Z");

  final Engine engine = new Engine(EngineConfig.defaults());

  @Test
  void firesInTheTurnOfItsOccurrenceInTheEnqueueCommitMode() {
    engine.crons().putGroup("g", group(entry("e", EVERY_SECOND)), T0);
    engine.takeTurn();
    assertThat(engine.nextDeadlineMs()).isEqualTo(T0 + 800);

    engine.runDue(T0 + 850);
    Turn turn = engine.takeTurn();

    assertThat(turn.hasEnqueues()).isTrue();
    assertThat(turn.hasOtherWrites()).isFalse();
    assertThat(turn.newJobs()).singleElement()
        .satisfies(job -> assertThat(job.readyAtMs()).isEqualTo(T0 + 800));
    assertThat(turn.mutations()).filteredOn(Mutation.PutCronGroup.class::isInstance).hasSize(1);
    assertThat(engine.nextDeadlineMs()).isEqualTo(T0 + 1800);
  }

  @Test
  void aGroupWithoutATimeZoneRunsInTheZoneTheEngineWasGivenNotTheMachines() {
    TimeZone machine = TimeZone.getDefault();
    try {
      TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
      Engine utc = new Engine(EngineConfig.defaults(), BatchExpressions.NONE,
          new JobIdGenerator(), ZoneOffset.UTC);

      utc.crons().putGroup("daily", group(entry("midnight", "0 0 * * *")), T0);
      utc.takeTurn();

      assertThat(utc.nextDeadlineMs()).isEqualTo(at("2024-01-16T00:00:00Z"));
    } finally {
      TimeZone.setDefault(machine);
    }
  }

  @Test
  void resetDeletesCronGroupsBeforeTheBudgetsTheyHold() {
    engine.budgetAdmin().put("api", CronFixture.concurrency(2), T0);
    engine.crons().putGroup("g",
        group(entry("e", EVERY_SECOND, template("t", new BindingRequest("api", 1L, null)))), T0);
    engine.takeTurn();

    engine.reset(T0 + 1);

    assertThat(engine.takeTurn().mutations()).containsExactly(
        new Mutation.DeleteCronGroup("g"), new Mutation.DeleteBudget("api"));
    assertThat(engine.crons().listGroupNames()).isEmpty();
    assertThat(engine.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
  }
}
