package io.sluice.engine;

import static io.sluice.engine.CronFixture.at;
import static io.sluice.engine.CronFixture.entry;
import static io.sluice.engine.CronFixture.group;
import static io.sluice.engine.CronFixture.groupWith;
import static io.sluice.engine.CronFixture.template;
import static io.sluice.engine.cron.CronEntry.NONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.cron.CronEntryView;
import io.sluice.engine.cron.CronGroupView;
import io.sluice.engine.cron.GroupPatch;
import io.sluice.engine.store.Mutation;
import java.time.ZoneId;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The cron commands and firing rules of API.md §9, on a hand-driven clock. */
class CronAdminTest {
  static final ZoneId ROME = ZoneId.of("Europe/Rome");
  static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");
  static final long T0 = at("2024-01-15T00:30:00Z");

  final CronFixture f = new CronFixture();
  final CronAdmin crons = f.crons;
  final CronFiring firing = f.firing;

  /** Installs an entry whose template draws {@code cost} from budget {@code key}. */
  void bind(String group, String entry, String key, long cost) {
    crons.putEntry(group, entry(entry, "0 * * * *",
        template("t", new BindingRequest(key, cost, null))), T0);
  }

  CronEntryView entryOf(CronGroupView group, String name) {
    return group.entries().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
  }

  @Nested
  class PutGroup {
    @Test
    void schedulesNewEntriesAtTheFirstOccurrenceStrictlyAfterNow() {
      CronGroupView group = crons.putGroup("g", group(entry("hourly", "0 * * * *")),
          at("2024-01-15T01:00:00Z"));

      CronEntryView hourly = group.entries().get(0);
      assertThat(hourly.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(hourly.lastEnqueueAtMs()).isEqualTo(NONE);
      assertThat(hourly.paused()).isFalse();
      assertThat(hourly.pausedAtMs()).isEqualTo(NONE);
    }

    @Test
    void answersInRequestOrderWhileReadsSortByName() {
      CronGroupView put = crons.putGroup("g",
          group(entry("b", "0 * * * *"), entry("a", "0 * * * *"), entry("c", "0 * * * *")), T0);

      assertThat(put.entries()).extracting(CronEntryView::name).containsExactly("b", "a", "c");
      assertThat(crons.getGroup("g").entries()).extracting(CronEntryView::name)
          .containsExactly("a", "b", "c");
    }

    @Test
    void isIdempotentAndKeepsTheSchedule() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      firing.fireDue(at("2024-01-15T01:00:05Z"));

      CronGroupView again = crons.putGroup("g", group(entry("e", "0 * * * *")),
          at("2024-01-15T01:20:00Z"));

      CronEntryView e = again.entries().get(0);
      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(e.lastEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:05Z"));
    }

    @Test
    void keepsTheScheduleWhenOnlyTheTemplateChanges() {
      crons.putGroup("g", group(entry("e", "*/10 * * * *")), T0);

      CronGroupView again = crons.putGroup("g",
          group(entry("e", "*/10 * * * *", template("other-type"))), at("2024-01-15T00:35:00Z"));

      assertThat(again.entries().get(0).nextEnqueueAtMs()).isEqualTo(at("2024-01-15T00:40:00Z"));
      assertThat(again.entries().get(0).job().type()).isEqualTo("other-type");
    }

    @Test
    void recomputesFromNowAndKeepsLastWhenTheExpressionChanges() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      firing.fireDue(at("2024-01-15T01:00:00Z"));

      CronEntryView e = crons.putGroup("g", group(entry("e", "15 * * * *")),
          at("2024-01-15T01:20:00Z")).entries().get(0);

      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:15:00Z"));
      assertThat(e.lastEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
    }

    @Test
    void countsADifferentSpellingAsAChangedExpression() {
      crons.putGroup("g", group(entry("e", "0 9 * * *")), T0);

      CronEntryView e = crons.putGroup("g", group(entry("e", "0 09 * * *")),
          at("2024-01-15T09:30:00Z")).entries().get(0);

      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-16T09:00:00Z"));
    }

    @Test
    void recomputesWhenTheEffectiveZoneChangesThroughTheGroup() {
      crons.putGroup("g", groupWith(null, null, entry("inherits", "0 9 * * *"),
          entry("own", "0 9 * * *", TOKYO, null)), T0);

      CronGroupView rome = crons.putGroup("g", groupWith(null, ROME, entry("inherits", "0 9 * * *"),
          entry("own", "0 9 * * *", TOKYO, null)), at("2024-01-15T01:00:00Z"));

      // 09:00 in Rome (UTC+1) is 08:00Z; Tokyo's schedule did not move.
      assertThat(entryOf(rome, "inherits").nextEnqueueAtMs())
          .isEqualTo(at("2024-01-15T08:00:00Z"));
      assertThat(entryOf(rome, "own").nextEnqueueAtMs()).isEqualTo(at("2024-01-16T00:00:00Z"));
      assertThat(rome.zone()).isEqualTo(ROME);
    }

    @Test
    void keepsTheScheduleWhenTheEntryZoneMovesToTheGroupWithTheSameEffectiveZone() {
      crons.putGroup("g", groupWith(null, ROME, entry("e", "*/5 * * * *", ROME, null)), T0);
      firing.fireDue(at("2024-01-15T00:35:00Z"));

      CronEntryView e = crons.putGroup("g", groupWith(null, ROME, entry("e", "*/5 * * * *")),
          at("2024-01-15T00:36:00Z")).entries().get(0);

      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T00:40:00Z"));
      assertThat(e.lastEnqueueAtMs()).isEqualTo(at("2024-01-15T00:35:00Z"));
    }

    @Test
    void clearsTheGroupZoneWhenOmitted() {
      crons.putGroup("g", groupWith(null, ROME, entry("e", "0 9 * * *")), T0);

      CronGroupView cleared = crons.putGroup("g", group(entry("e", "0 9 * * *")), T0 + 1);

      assertThat(cleared.zone()).isNull();
      assertThat(cleared.entries().get(0).nextEnqueueAtMs()).isEqualTo(at("2024-01-15T09:00:00Z"));
    }

    @Test
    void deletesEntriesAbsentFromTheRequest() {
      crons.putGroup("g", group(entry("a", "0 * * * *"), entry("b", "0 * * * *")), T0);

      crons.putGroup("g", group(entry("b", "0 * * * *")), T0 + 1);

      assertThat(crons.getGroup("g").entries()).extracting(CronEntryView::name)
          .containsExactly("b");
      assertThatThrownBy(() -> crons.getEntry("g", "a"))
          .isInstanceOf(SluiceException.NotFound.class);
    }

    @Test
    void stampsPausedAtOnANewGroupCreatedPaused() {
      CronGroupView group = crons.putGroup("g", groupWith(true, null), T0);

      assertThat(group.paused()).isTrue();
      assertThat(group.pausedAtMs()).isEqualTo(T0);
      assertThat(group.resumedAtMs()).isEqualTo(NONE);
    }

    @Test
    void keepsThePauseStateWhenPausedIsAbsent() {
      crons.putGroup("g", groupWith(true, null), T0);

      CronGroupView again = crons.putGroup("g", groupWith(null, null), T0 + 1000);

      assertThat(again.paused()).isTrue();
      assertThat(again.pausedAtMs()).isEqualTo(T0);
    }

    @Test
    void followsThePauseRulesForGroupsAndEntries() {
      crons.putGroup("g", groupWith(false, null, entry("e", "0 * * * *", null, false)), T0);
      assertThat(crons.getGroup("g").pausedAtMs()).isEqualTo(NONE);

      CronGroupView paused =
          crons.putGroup("g", groupWith(true, null, entry("e", "0 * * * *", null, true)), T0 + 1);
      CronGroupView unchanged =
          crons.putGroup("g", groupWith(true, null, entry("e", "0 * * * *", null, true)), T0 + 2);
      CronGroupView resumed =
          crons.putGroup("g", groupWith(false, null, entry("e", "0 * * * *", null, false)), T0 + 3);

      assertThat(paused.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(paused.entries().get(0).pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(unchanged.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(unchanged.entries().get(0).pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(resumed.paused()).isFalse();
      assertThat(resumed.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(resumed.resumedAtMs()).isEqualTo(T0 + 3);
      assertThat(resumed.entries().get(0).resumedAtMs()).isEqualTo(T0 + 3);
    }

    @Test
    void writesTheGroupRecord() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);

      assertThat(f.writes).singleElement().isInstanceOfSatisfying(Mutation.PutCronGroup.class,
          put -> assertThat(put.name()).isEqualTo("g"));
    }
  }

  @Nested
  class Groups {
    @Test
    void listsNamesInByteOrder() {
      crons.putGroup("b", group(), T0);
      crons.putGroup("a", group(), T0);
      crons.putGroup("Z", group(), T0);

      assertThat(crons.listGroupNames()).containsExactly("Z", "a", "b");
    }

    @Test
    void deleteAllCountsAndDeletesEveryRecord() {
      crons.putGroup("a", group(entry("e", "* * * * *")), T0);
      crons.putGroup("b", group(), T0);
      f.writes.clear();

      assertThat(crons.deleteAll()).isEqualTo(2);

      assertThat(f.writes).containsExactly(
          new Mutation.DeleteCronGroup("a"), new Mutation.DeleteCronGroup("b"));
      assertThat(crons.listGroupNames()).isEmpty();
      assertThat(crons.nextFireMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void answersNotFoundForAMissingGroup() {
      assertThatThrownBy(() -> crons.getGroup("nope"))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("cron group 'nope' not found");
      assertThatThrownBy(() -> crons.deleteGroup("nope"))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("cron group 'nope' not found");
      assertThatThrownBy(() -> crons.patchGroup("nope", new GroupPatch(true, false, null), T0))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("cron group 'nope' not found");
    }

    @Test
    void deleteRemovesTheGroupAndItsRecord() {
      crons.putGroup("g", group(entry("e", "* * * * *")), T0);

      crons.deleteGroup("g");

      assertThat(crons.listGroupNames()).isEmpty();
      assertThat(f.writes).last().isEqualTo(new Mutation.DeleteCronGroup("g"));
      assertThat(crons.nextFireMs()).isEqualTo(Long.MAX_VALUE);
    }
  }

  @Nested
  class PatchGroup {
    @Test
    void leavesTheZoneWhenAbsentAndClearsItOnNull() {
      crons.putGroup("g", groupWith(null, ROME, entry("e", "0 9 * * *")), T0);

      assertThat(crons.patchGroup("g", new GroupPatch(true, false, null), T0 + 1).zone())
          .isEqualTo(ROME);
      CronGroupView cleared = crons.patchGroup("g", new GroupPatch(null, true, null), T0 + 2);

      assertThat(cleared.zone()).isNull();
      assertThat(cleared.paused()).isTrue();
      assertThat(cleared.entries().get(0).nextEnqueueAtMs())
          .isEqualTo(at("2024-01-15T09:00:00Z"));
    }

    @Test
    void recomputesOnlyTheEntriesThatInheritTheZone() {
      crons.putGroup("g",
          group(entry("inherits", "0 9 * * *"), entry("own", "0 9 * * *", TOKYO, null)), T0);

      CronGroupView rome = crons.patchGroup("g", new GroupPatch(null, true, ROME), T0 + 1);

      assertThat(entryOf(rome, "inherits").nextEnqueueAtMs())
          .isEqualTo(at("2024-01-15T08:00:00Z"));
      assertThat(entryOf(rome, "own").nextEnqueueAtMs()).isEqualTo(at("2024-01-16T00:00:00Z"));
    }

    @Test
    void keepsTheScheduleWhenTheSameZoneIsSetAgain() {
      crons.putGroup("g", groupWith(null, ROME, entry("e", "*/5 * * * *")), T0);
      firing.fireDue(at("2024-01-15T00:35:00Z"));

      CronGroupView same =
          crons.patchGroup("g", new GroupPatch(null, true, ROME), at("2024-01-15T00:36:00Z"));

      assertThat(same.entries().get(0).nextEnqueueAtMs()).isEqualTo(at("2024-01-15T00:40:00Z"));
    }

    @Test
    void withNeitherFieldChangesAndWritesNothing() {
      CronGroupView put = crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      f.writes.clear();

      CronGroupView patched = crons.patchGroup("g", new GroupPatch(null, false, null), T0 + 1);

      assertThat(patched).isEqualTo(put);
      assertThat(f.writes).isEmpty();
    }

    @Test
    void followsThePauseRules() {
      crons.putGroup("g", group(), T0);

      CronGroupView paused = crons.patchGroup("g", new GroupPatch(true, false, null), T0 + 1);
      CronGroupView again = crons.patchGroup("g", new GroupPatch(true, false, null), T0 + 2);
      CronGroupView resumed = crons.patchGroup("g", new GroupPatch(false, false, null), T0 + 3);

      assertThat(paused.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(again.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(resumed.resumedAtMs()).isEqualTo(T0 + 3);
      assertThat(resumed.pausedAtMs()).isEqualTo(T0 + 1);
    }
  }

  @Nested
  class Entries {
    @Test
    void addCreatesTheGroupWhenMissing() {
      CronEntryView added = crons.addEntry("new-group", entry("e", "0 * * * *"), T0);

      assertThat(added.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
      CronGroupView group = crons.getGroup("new-group");
      assertThat(group.paused()).isFalse();
      assertThat(group.zone()).isNull();
      assertThat(group.entries()).extracting(CronEntryView::name).containsExactly("e");
    }

    @Test
    void addRefusesAnExistingEntry() {
      crons.addEntry("g", entry("e", "0 * * * *"), T0);

      assertThatThrownBy(() -> crons.addEntry("g", entry("e", "5 * * * *"), T0))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessage("cron entry 'e' already exists in group 'g'");
    }

    @Test
    void putCreatesOrReplacesWithTheReplacementRules() {
      CronEntryView created = crons.putEntry("g", entry("e", "0 * * * *"), T0);
      firing.fireDue(at("2024-01-15T01:00:00Z"));

      CronEntryView kept = crons.putEntry("g", entry("e", "0 * * * *", null, true),
          at("2024-01-15T01:10:00Z"));
      CronEntryView moved = crons.putEntry("g", entry("e", "0 * * * *", TOKYO, null),
          at("2024-01-15T01:20:00Z"));

      assertThat(created.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
      assertThat(kept.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(kept.paused()).isTrue();
      assertThat(kept.pausedAtMs()).isEqualTo(at("2024-01-15T01:10:00Z"));
      // Tokyo is a whole-hour offset: the next top of the hour, recomputed from now.
      assertThat(moved.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(moved.zone()).isEqualTo(TOKYO);
      assertThat(moved.lastEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
      assertThat(moved.paused()).as("absent paused keeps the state").isTrue();
    }

    @Test
    void putOfAnEntryLeavesItsSiblingsAlone() {
      crons.putGroup("g", group(entry("a", "0 * * * *"), entry("b", "0 * * * *")), T0);

      crons.putEntry("g", entry("a", "30 * * * *"), T0 + 1);

      assertThat(crons.getGroup("g").entries()).extracting(CronEntryView::name)
          .containsExactly("a", "b");
    }

    @Test
    void patchFollowsThePauseRules() {
      crons.addEntry("g", entry("e", "0 * * * *"), T0);

      CronEntryView paused = crons.patchEntry("g", "e", true, T0 + 1);
      CronEntryView again = crons.patchEntry("g", "e", true, T0 + 2);
      CronEntryView resumed = crons.patchEntry("g", "e", false, T0 + 3);

      assertThat(paused.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(again.pausedAtMs()).isEqualTo(T0 + 1);
      assertThat(resumed.paused()).isFalse();
      assertThat(resumed.resumedAtMs()).isEqualTo(T0 + 3);
    }

    @Test
    void deleteRemovesOnlyThatEntry() {
      crons.putGroup("g", group(entry("a", "0 * * * *"), entry("b", "0 * * * *")), T0);

      crons.deleteEntry("g", "a");

      assertThat(crons.getGroup("g").entries()).extracting(CronEntryView::name)
          .containsExactly("b");
      assertThat(f.writes).last().isInstanceOf(Mutation.PutCronGroup.class);
    }

    @Test
    void answersNotFoundForAMissingEntryOrGroup() {
      crons.putGroup("g", group(), T0);
      String message = "cron entry 'e' not found in group 'g'";
      String noGroup = "cron entry 'e' not found in group 'h'";

      assertThatThrownBy(() -> crons.getEntry("g", "e")).hasMessage(message);
      assertThatThrownBy(() -> crons.patchEntry("g", "e", true, T0)).hasMessage(message);
      assertThatThrownBy(() -> crons.deleteEntry("g", "e")).hasMessage(message);
      assertThatThrownBy(() -> crons.getEntry("h", "e"))
          .isInstanceOf(SluiceException.NotFound.class).hasMessage(noGroup);
      assertThatThrownBy(() -> crons.deleteEntry("h", "e")).hasMessage(noGroup);
    }
  }

  @Nested
  class Firing {
    @Test
    void enqueuesOneJobReadyAtTheOccurrence() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);

      firing.fireDue(at("2024-01-15T01:00:00.250Z"));

      assertThat(f.enqueued).singleElement().satisfies(job -> {
        assertThat(job.readyAtMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
        assertThat(job.id()).isNotNull();
        assertThat(job.type()).isEqualTo("e");
      });
      CronEntryView e = crons.getEntry("g", "e");
      assertThat(e.lastEnqueueAtMs()).isEqualTo(at("2024-01-15T01:00:00.250Z"));
      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(f.firedWrites).singleElement().isInstanceOf(Mutation.PutCronGroup.class);
    }

    @Test
    void doesNothingBeforeTheOccurrence() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      f.writes.clear();

      firing.fireDue(at("2024-01-15T00:59:59.999Z"));

      assertThat(f.enqueued).isEmpty();
      assertThat(f.firedWrites).isEmpty();
      assertThat(crons.nextFireMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
    }

    @Test
    void collapsesMissedOccurrencesIntoOneFire() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);

      firing.fireDue(at("2024-01-15T05:30:00Z"));
      firing.fireDue(at("2024-01-15T05:30:01Z"));

      assertThat(f.enqueued).singleElement()
          .satisfies(job -> assertThat(job.readyAtMs()).isEqualTo(at("2024-01-15T01:00:00Z")));
      assertThat(crons.getEntry("g", "e").nextEnqueueAtMs())
          .isEqualTo(at("2024-01-15T06:00:00Z"));
    }

    @Test
    void advancesPausedEntriesWithoutEnqueueing() {
      crons.putGroup("g", group(entry("e", "0 * * * *", null, true)), T0);

      firing.fireDue(at("2024-01-15T01:00:00Z"));

      assertThat(f.enqueued).isEmpty();
      CronEntryView e = crons.getEntry("g", "e");
      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
      assertThat(e.lastEnqueueAtMs()).isEqualTo(NONE);
      assertThat(f.firedWrites).hasSize(1);
    }

    @Test
    void advancesEntriesOfAPausedGroupWithoutEnqueueing() {
      crons.putGroup("g", groupWith(true, null, entry("e", "0 * * * *")), T0);

      firing.fireDue(at("2024-01-15T03:10:00Z"));
      crons.patchGroup("g", new GroupPatch(false, false, null), at("2024-01-15T03:20:00Z"));
      firing.fireDue(at("2024-01-15T04:00:00Z"));

      assertThat(f.enqueued).singleElement()
          .satisfies(job -> assertThat(job.readyAtMs()).isEqualTo(at("2024-01-15T04:00:00Z")));
    }

    @Test
    void firesEveryDueEntryOfEveryGroup() {
      crons.putGroup("g", group(entry("a", "0 * * * *"), entry("b", "30 * * * *")), T0);
      crons.putGroup("h", group(entry("c", "0 * * * *")), T0);

      firing.fireDue(at("2024-01-15T01:00:00Z"));

      assertThat(f.enqueued).extracting(j -> j.type()).containsExactly("a", "c");
      assertThat(crons.nextFireMs()).isEqualTo(at("2024-01-15T01:30:00Z"));
    }

    @Test
    void firesSecondLevelExpressions() {
      crons.putGroup("g", group(entry("e", "* * * * * *")), at("2024-01-15T00:00:00.400Z"));

      firing.fireDue(at("2024-01-15T00:00:01.003Z"));

      assertThat(f.enqueued).singleElement()
          .satisfies(job -> assertThat(job.readyAtMs()).isEqualTo(at("2024-01-15T00:00:01Z")));
      assertThat(crons.nextFireMs()).isEqualTo(at("2024-01-15T00:00:02Z"));
    }

    @Test
    void advancesWithoutRecordingAFireWhenTheEnqueueFails() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      f.enqueueFailure = new SluiceException.Unprocessable("budget 'x' does not exist");

      firing.fireDue(at("2024-01-15T01:00:00Z"));

      CronEntryView e = crons.getEntry("g", "e");
      assertThat(e.lastEnqueueAtMs()).isEqualTo(NONE);
      assertThat(e.nextEnqueueAtMs()).isEqualTo(at("2024-01-15T02:00:00Z"));
    }

    @Test
    void leavesAnExpressionWithoutFutureOccurrencesUnscheduled() {
      CronEntryView never = crons.putEntry("g", entry("e", "0 0 30 2 *"), T0);

      firing.fireDue(Long.MAX_VALUE - 1);

      assertThat(never.nextEnqueueAtMs()).isEqualTo(NONE);
      assertThat(crons.nextFireMs()).isEqualTo(Long.MAX_VALUE);
      assertThat(f.enqueued).isEmpty();
    }

    @Test
    void nextFireIsTheEarliestEntryPausedOrNot() {
      assertThat(crons.nextFireMs()).isEqualTo(Long.MAX_VALUE);
      crons.putGroup("g", group(entry("a", "0 * * * *"), entry("b", "45 * * * *", null, true)),
          T0);

      assertThat(crons.nextFireMs()).isEqualTo(at("2024-01-15T00:45:00Z"));
    }
  }

  @Nested
  class Budgets {
    @Test
    void resolvesBindingsAtInstallationAndFiresWithThem() {
      f.defineBudget("api", 5, T0);
      crons.putGroup("g", group(entry("e", "0 * * * *",
          template("t", new BindingRequest("api", 2L, null)))), T0);

      firing.fireDue(at("2024-01-15T01:00:00Z"));

      assertThat(crons.getEntry("g", "e").job().budgets())
          .extracting(b -> b.key() + ":" + b.cost()).containsExactly("api:2");
      assertThat(f.enqueued.get(0).budgets())
          .containsExactly(new BindingRequest("api", 2L, null));
    }

    @Test
    void createsCreateWithBudgetsOnceAtInstallation() {
      BindingRequest creating = new BindingRequest("new", null, CronFixture.concurrency(3));
      crons.putGroup("g", group(entry("a", "0 * * * *", template("t", creating)),
          entry("b", "0 * * * *", template("t", creating))), T0);

      assertThat(f.budgets.get("new")).isNotNull();
      assertThat(f.writes).filteredOn(Mutation.PutBudget.class::isInstance).hasSize(1);
    }

    @Test
    void refusesProblemsAsBadRequestsWithoutChangingAnything() {
      f.defineBudget("small", 1, T0);

      assertThatThrownBy(() -> crons.putGroup("g", group(
          entry("a", "0 * * * *", template("t",
              new BindingRequest("fresh", null, CronFixture.concurrency(3)))),
          entry("b", "0 * * * *", template("t", new BindingRequest("missing", null, null)))),
          T0))
          .isInstanceOf(SluiceException.InvalidRequest.class)
          .hasMessage("budget 'missing' does not exist and no create_with policy was supplied to"
              + " create it with");
      assertThatThrownBy(() -> crons.addEntry("g",
          entry("a", "0 * * * *", template("t", new BindingRequest("small", 2L, null))), T0))
          .isInstanceOf(SluiceException.InvalidRequest.class)
          .hasMessage("cost 2 exceeds budget 'small', which holds at most 1");

      assertThat(f.budgets.get("fresh")).isNull();
      assertThat(crons.listGroupNames()).isEmpty();
      assertThat(f.writes).isEmpty();
    }

    @Test
    void templatesBlockDeletingTheirBudgets() {
      f.defineBudget("api", 5, T0);
      bind("g", "b", "api", 1);
      bind("g", "a", "api", 1);

      assertThatThrownBy(() -> f.budgetAdmin().delete("api"))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessage("budget 'api' is referenced by 2 cron entries, including 'g/a'. Remove them"
              + " before deleting it.");

      crons.deleteEntry("g", "a");
      assertThatThrownBy(() -> f.budgetAdmin().delete("api"))
          .hasMessage("budget 'api' is referenced by 1 cron entry, including 'g/b'. Remove them"
              + " before deleting it.");

      crons.deleteGroup("g");
      f.budgetAdmin().delete("api");
      assertThat(f.budgets.get("api")).isNull();
    }

    @Test
    void templatesBlockShrinkingBelowTheirCost() {
      f.defineBudget("api", 5, T0);
      bind("g", "e", "api", 3);

      assertThatThrownBy(() -> f.budgetAdmin().put("api", CronFixture.concurrency(2), T0))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'api' cannot allocate 2: cron entry 'g/e' draws 3 from it. Lower"
              + " the entry's cost or remove it first.");

      f.budgetAdmin().put("api", CronFixture.concurrency(3), T0);
    }
  }

  @Nested
  class Recovery {
    @Test
    void resumesTheStoredScheduleAndFiresMissedOccurrencesOnce() {
      crons.putGroup("g", group(entry("e", "0 * * * *")), T0);
      Mutation.PutCronGroup stored = (Mutation.PutCronGroup) f.writes.get(0);

      CronFixture restarted = new CronFixture();
      restarted.crons.recover("g", stored.record());
      assertThat(restarted.crons.nextFireMs()).isEqualTo(at("2024-01-15T01:00:00Z"));
      restarted.firing.fireDue(at("2024-01-15T03:30:00Z"));
      restarted.firing.fireDue(at("2024-01-15T03:30:01Z"));

      assertThat(restarted.enqueued).singleElement()
          .satisfies(job -> assertThat(job.readyAtMs()).isEqualTo(at("2024-01-15T01:00:00Z")));
      assertThat(restarted.crons.getEntry("g", "e").nextEnqueueAtMs())
          .isEqualTo(at("2024-01-15T04:00:00Z"));
    }

    @Test
    void skipsARecordItCannotRead() {
      crons.recover("bad", new byte[] {42});

      assertThat(crons.listGroupNames()).isEmpty();
    }
  }
}
