package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.without;
import static io.sluice.cli.http.CronClient.entry;
import static io.sluice.cli.http.CronClient.group;
import static io.sluice.cli.http.CronClient.groupPath;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.poll;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cron entries firing on a real clock (API.md §9.6): every-second expressions, so each test
 * waits about two seconds. Each test deletes its group, so nothing keeps firing after it.
 */
class CronFiringHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final CronClient crons = new CronClient(server);
  static final String EVERY_SECOND = "* * * * * *";

  @Test
  void firesAJobReadyAtTheOccurrenceInstant() {
    String g = uniqueName("fire");
    String queue = uniqueName("fired");
    crons.putGroupOk(g, group(entry("tick", EVERY_SECOND, queue)));
    try (WorkerStream worker = server.take("queue=" + queue)) {
      JsonNode job = worker.nextJob();

      long readyAt = job.get("ready_at").longValue();
      assertThat(readyAt % 1000).as("a whole second").isZero();
      assertThat(job.get("type").textValue()).isEqualTo("cron-tick");
      assertThat(job.get("payload")).isEqualTo(parse("{\"n\": 1}"));
      assertThat(job.get("priority").intValue()).isEqualTo(32768);
      JsonNode entry = crons.fetchEntry(g, "tick");
      assertThat(entry.get("last_enqueue_at").longValue()).isGreaterThanOrEqualTo(readyAt);
      assertThat(entry.get("next_enqueue_at").longValue()).isGreaterThan(readyAt);
      assertThat(entry.get("next_enqueue_at").longValue() % 1000).isZero();
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

      // Two fires of the sibling: every paused occurrence scheduled before them has passed.
      server.ack(id(worker.nextJob()));
      server.ack(id(worker.nextJob()));

      JsonNode pausedEntry = crons.fetchEntry(g, "paused");
      JsonNode inPausedGroup = crons.fetchEntry(pausedGroup, "e");
      assertThat(nextEnqueueAt(pausedEntry)).isGreaterThan(entryNext);
      assertThat(nextEnqueueAt(inPausedGroup)).isGreaterThan(groupNext);
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
    try (ServerFixture own = ServerFixture.start(tempDir)) {
      CronClient ownCrons = new CronClient(own);
      String queue = "restarted";
      ownCrons.putGroupOk("g", group(entry("tick", EVERY_SECOND, queue)));
      poll(() -> QueryClient.count(own, "queue=" + queue), n -> n >= 2, "two fires");
      JsonNode before = ownCrons.fetchGroup("g");

      own.restart();
      long restartedMs = System.currentTimeMillis();

      assertThat(without(ownCrons.fetchGroup("g"), "next_enqueue_at", "last_enqueue_at"))
          .isEqualTo(without(before, "next_enqueue_at", "last_enqueue_at"));
      poll(() -> readyTimes(own, queue), times -> times.get(times.size() - 1) > restartedMs,
          "a fire after the restart");
      own.delete(groupPath("g"));

      List<Long> times = readyTimes(own, queue);
      assertThat(times).doesNotHaveDuplicates().allMatch(ms -> ms % 1000 == 0);
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
