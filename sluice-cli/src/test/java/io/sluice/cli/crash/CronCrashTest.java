package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cron schedules survive SIGKILL (API.md §9.6): the group is back after a restart on the same
 * root directory and keeps firing, the occurrences missed while the server was down collapse into
 * at most one fire, and no occurrence is ever fired twice.
 */
class CronCrashTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final String QUEUE = "cron-crash";

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();


  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aScheduleKeepsFiringAfterSigkillWithoutDoubleOrBurstFires() throws Exception {
    Path root = tmp.resolve("root");
    SluiceProcess first = start(root);
    HttpResponse<String> put = put(first, "/crons/crash", """
        {"entries":[{"name":"tick","expression":"* * * * * *",
          "job":{"type":"tick","queue":"%s","payload":{}}}]}""".formatted(QUEUE));
    assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
    awaitJobs(first, 2);

    long killedAtMs = System.currentTimeMillis();
    assertThat(first.sigkill()).isEqualTo(CrashServers.SIGKILL_STATUS);
    Thread.sleep(1_500); // at least one occurrence falls due while the server is down
    SluiceProcess second = start(root);
    long upAtMs = System.currentTimeMillis();

    JsonNode entry = JSON.readTree(second.get("/crons/crash/entries/tick").body());
    assertThat(entry.get("expression").asText()).isEqualTo("* * * * * *");
    int before = readyAts(second).size();
    List<Long> after = awaitJobs(second, before + 2);

    Set<Long> distinct = new HashSet<>(after);
    assertThat(distinct).as("no occurrence fired twice: %s", after).hasSameSizeAs(after);
    assertThat(after).allSatisfy(readyAt -> assertThat(readyAt % 1000).isZero());
    long firedForDowntime = after.stream()
        .filter(readyAt -> readyAt > killedAtMs + 1000 && readyAt < upAtMs - 1000)
        .count();
    assertThat(firedForDowntime).as("occurrences missed while down collapse into one fire: %s",
        after).isLessThanOrEqualTo(1);
  }

  private SluiceProcess start(Path root) throws Exception {
    return servers.start(root, tmp);
  }

  private static HttpResponse<String> put(SluiceProcess server, String path, String json)
      throws Exception {
    return server.http().send(HttpRequest.newBuilder(server.uri(path))
        .timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .PUT(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Waits until the queue holds at least {@code count} fired jobs; their ready_at values. */
  private static List<Long> awaitJobs(SluiceProcess server, int count) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<Long> readyAts = readyAts(server);
    while (readyAts.size() < count && System.nanoTime() < deadline) {
      Thread.sleep(100);
      readyAts = readyAts(server);
    }
    assertThat(readyAts).as("fired jobs within %s", WAIT).hasSizeGreaterThanOrEqualTo(count);
    return readyAts;
  }

  private static List<Long> readyAts(SluiceProcess server) throws Exception {
    HttpResponse<String> page = server.get("/jobs?queue=" + QUEUE + "&limit=2000");
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    List<Long> readyAts = new ArrayList<>();
    for (JsonNode job : JSON.readTree(page.body()).get("jobs")) {
      readyAts.add(job.get("ready_at").asLong());
    }
    return readyAts;
  }
}
