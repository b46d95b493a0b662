package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.without;
import static io.sluice.cli.http.CronClient.entry;
import static io.sluice.cli.http.CronClient.group;
import static io.sluice.cli.http.CronClient.groupPath;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cron entries firing as the server's clock passes their occurrences (API.md §9.6), with
 * every-second expressions on a manual clock that each test moves from one occurrence to the
 * next. Each test deletes its group, so nothing fires in a later test.
 */
class CronFiringHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final CronClient crons = new CronClient(server);
  static final String EVERY_SECOND = "* * * * * *";

  /** Moves {@code target}'s manual clock on to {@code instantMs}. */
  static void advanceTo(ServerFixture target, long instantMs) {
    target.advance(Duration.ofMillis(instantMs - target.nowMs()));
  }

  @Test
  void firesAJobReadyAtTheOccurrenceInstant() {
    String g = uniqueName("fire");
    String queue = uniqueName("fired");
    crons.putGroupOk(g, group(entry("tick", EVERY_SECOND, queue)));
    try (WorkerStream worker = server.take("queue=" + queue)) {
      long occurrenceMs = nextEnqueueAt(crons.fetchEntry(g, "tick"));
      advanceTo(server, occurrenceMs - 1);
      assertThat(QueryClient.count(server, "queue=" + queue))
          .as("jobs a millisecond before the occurrence").isZero();
      advanceTo(server, occurrenceMs);

      JsonNode job = worker.nextJob();

      long readyAt = job.get("ready_at").longValue();
      assertThat(readyAt).as("the occurrence instant").isEqualTo(occurrenceMs);
      assertThat(readyAt % 1000).as("a whole second").isZero();
      assertThat(job.get("type").textValue()).isEqualTo("cron-tick");
      assertThat(job.get("payload")).isEqualTo(parse("{\"n\": 1}"));
      assertThat(job.get("priority").intValue()).isEqualTo(32768);
      JsonNode entry = crons.fetchEntry(g, "tick");
      assertThat(entry.get("last_enqueue_at").longValue()).isEqualTo(readyAt);
      assertThat(entry.get("next_enqueue_at").longValue()).isEqualTo(readyAt + 1000);
    } finally {
      server.delete(groupPath(g));
    }
  }

  @Test
  void pausedEntriesAndGroupsAdvanceWithoutEnqueueing() {
    String g = uniqueName("paused");
    String pausedGroup = uniqueName("paused-group");
    String running = uniqueName("running");
    String pausedQueue = uniqueName("never");
    crons.putGroupOk(g, group(entry("paused", EVERY_SECOND, pausedQueue).put("paused", true),
        entry("running", EVERY_SECOND, running)));
    crons.putGroupOk(pausedGroup, group(entry("e", EVERY_SECOND, pausedQueue)).put("paused", true));
    try (WorkerStream worker = server.take("queue=" + running)) {
      long entryNext = nextEnqueueAt(crons.fetchEntry(g, "paused"));
      long groupNext = nextEnqueueAt(crons.fetchEntry(pausedGroup, "e"));
      long firstFireMs = nextEnqueueAt(crons.fetchEntry(g, "running"));

      // Two fires of the sibling: every paused occurrence scheduled before them has passed.
      advanceTo(server, firstFireMs);
      server.ack(id(worker.nextJob()));
      advanceTo(server, firstFireMs + 1000);
      server.ack(id(worker.nextJob()));

      JsonNode pausedEntry = crons.fetchEntry(g, "paused");
      JsonNode inPausedGroup = crons.fetchEntry(pausedGroup, "e");
      assertThat(nextEnqueueAt(pausedEntry)).isGreaterThan(entryNext)
          .as("the occurrence after both fires").isEqualTo(firstFireMs + 2000);
      assertThat(nextEnqueueAt(inPausedGroup)).isGreaterThan(groupNext)
          .as("the occurrence after both fires").isEqualTo(firstFireMs + 2000);
      assertThat(pausedEntry.has("last_enqueue_at")).isFalse();
      assertThat(inPausedGroup.has("last_enqueue_at")).isFalse();
      assertThat(QueryClient.count(server, "queue=" + pausedQueue)).isZero();
    } finally {
      server.delete(groupPath(g));
      server.delete(groupPath(pausedGroup));
    }
  }

  static long nextEnqueueAt(JsonNode entry) {
    return entry.get("next_enqueue_at").longValue();
  }

  @Test
  void groupsSurviveARestartAndFiringResumesWithoutRefiringAnInstant(@TempDir Path tempDir) {
    try (ServerFixture own = ServerFixture.start(tempDir, new ManualClock())) {
      CronClient ownCrons = new CronClient(own);
      String queue = "restarted";
      ownCrons.putGroupOk("g", group(entry("tick", EVERY_SECOND, queue)));
      long firstFireMs = nextEnqueueAt(ownCrons.fetchEntry("g", "tick"));
      advanceTo(own, firstFireMs);
      advanceTo(own, firstFireMs + 1000);
      assertThat(readyTimes(own, queue)).as("two fires")
          .containsExactly(firstFireMs, firstFireMs + 1000);
      JsonNode before = ownCrons.fetchGroup("g");

      // At the instant of the last fire, which the restarted server must not fire again.
      own.restart();

      assertThat(without(ownCrons.fetchGroup("g"), "next_enqueue_at", "last_enqueue_at"))
          .isEqualTo(without(before, "next_enqueue_at", "last_enqueue_at"));
      advanceTo(own, firstFireMs + 2000);
      own.delete(groupPath("g"));

      List<Long> times = readyTimes(own, queue);
      assertThat(times).doesNotHaveDuplicates().allMatch(ms -> ms % 1000 == 0);
      assertThat(times).as("a fire after the restart, and no instant twice")
          .containsExactly(firstFireMs, firstFireMs + 1000, firstFireMs + 2000);
    }
  }

  /** The ready_at of every job in {@code queue}, in id (creation) order. */
  static List<Long> readyTimes(ServerFixture server, String queue) {
    List<Long> times = new ArrayList<>();
    for (JsonNode job : QueryClient.list(server, "queue=" + queue + "&limit=2000").get("jobs")) {
      times.add(job.get("ready_at").longValue());
    }
    return times;
  }
}
