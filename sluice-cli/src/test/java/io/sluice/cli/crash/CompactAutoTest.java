package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code SLUICE_AUTO_COMPACT_THRESHOLD} (CLI.md §2.1, API.md §8.15) on a server process: a bulk
 * delete or patch of at least that many jobs is followed by a full compaction in the background,
 * which gives the deleted jobs' disk space back.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompactAutoTest {
  private static final String THRESHOLD = "SLUICE_AUTO_COMPACT_THRESHOLD";
  private static final Pattern STARTED = Pattern.compile("full compaction started \\((.*)\\)");
  private static final String PADDING = "x".repeat(1_000);

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();

  @Test
  void bulkChangesOfAtLeastTheThresholdCompactAndReclaimTheSpace() throws Exception {
    Path root = tmp.resolve("root");
    SluiceProcess server = servers.start(root, tmp, List.of(), Map.of(THRESHOLD, "100"));
    JobCalls.enqueue(server, 99, 99, n -> JobCalls.job("small", "{\"n\":" + n + "}"));
    JobCalls.enqueue(server, 3_000, 500,
        n -> JobCalls.job("big", "{\"n\":" + n + ",\"pad\":\"" + PADDING + "\"}"));

    assertThat(JobCalls.deleteAll(server, "queue=small")).isEqualTo(99);
    long before = bytesUnder(root.resolve("data"));
    assertThat(JobCalls.deleteAll(server, "queue=big")).isEqualTo(3_000);

    awaitOutput(server, "full compaction finished in ");
    assertThat(reasons(server)).as("99 jobs are below the threshold")
        .containsExactly("bulk delete of 3000 jobs");
    long after = awaitShrink(root.resolve("data"), before / 2);
    System.out.printf("data directory: %d bytes before the bulk delete, %d after%n", before,
        after);

    JobCalls.enqueue(server, 150, 150, n -> JobCalls.job("patched", "{\"n\":" + n + "}"));
    assertThat(JobCalls.patchAll(server, "queue=patched", "{\"priority\":7}")).isEqualTo(150);
    awaitOutput(server, "full compaction started (bulk patch of 150 jobs)");
  }

  @Test
  void zeroDisablesIt() throws Exception {
    SluiceProcess server = servers.start(tmp.resolve("root"), tmp, List.of(),
        Map.of(THRESHOLD, "0"));
    JobCalls.enqueue(server, 500, 500, n -> JobCalls.job("q", "{\"n\":" + n + "}"));
    assertThat(JobCalls.deleteAll(server, "queue=q")).isEqualTo(500);

    // An automatic compaction would have started before the delete answered, so before this
    // one, which the admin API runs only after any running compaction.
    HttpResponse<String> compact = server.http().send(
        HttpRequest.newBuilder(URI.create(server.adminUrl() + "/compact"))
            .POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(compact.statusCode()).isEqualTo(204);
    assertThat(reasons(server)).containsExactly("admin request");
  }

  @Test
  void anInvalidThresholdStopsTheStart() throws Exception {
    for (String invalid : List.of("-1", "many")) {
      SluiceProcess server = servers.launch(tmp.resolve("root"), tmp, List.of(),
          Map.of(THRESHOLD, invalid));
      assertThat(server.awaitExit(Duration.ofSeconds(30))).as(server.output()).isEqualTo(1);
      assertThat(server.output()).contains("Error: invalid value for " + THRESHOLD + ": '"
          + invalid + "'");
    }
  }

  private static List<String> reasons(SluiceProcess server) {
    Matcher matcher = STARTED.matcher(server.output());
    return matcher.results().map(result -> result.group(1)).toList();
  }

  private static void awaitOutput(SluiceProcess server, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!server.output().contains(text)) {
      assertThat(System.nanoTime()).as("'%s' in the output:\n%s", text, server.output())
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** Waits for the data directory to hold at most {@code limit} bytes; returns its size. */
  private static long awaitShrink(Path dir, long limit) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long size = bytesUnder(dir);
    while (size > limit && System.nanoTime() < deadline) {
      Thread.sleep(50);
      size = bytesUnder(dir);
    }
    assertThat(size).as("data directory bytes after the compaction").isLessThanOrEqualTo(limit);
    return size;
  }

  private static long bytesUnder(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      long total = 0;
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        try {
          total += Files.size(file);
        } catch (IOException e) {
          // Deleted by the server since the listing.
        }
      }
      return total;
    }
  }
}
