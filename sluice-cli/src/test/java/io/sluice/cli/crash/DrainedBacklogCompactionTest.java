package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice serve} on the serial collector, as {@code bin/sluice} runs it: a backlog large
 * enough to grow the old generation by more than 32 MiB is enqueued, then worked off through a
 * take stream, and the server runs one full collection once it is gone, not before. Read from the
 * JVM's own collection log.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class DrainedBacklogCompactionTest {
  private static final String EXPLICIT_FULL_COLLECTION = "Pause Full (System.gc())";
  private static final int JOBS = 60_000;
  private static final int PER_REQUEST = 1_000;

  @TempDir Path root;
  @TempDir Path logs;

  @Test
  void aWorkedOffBacklogIsFollowedByOneFullCollection() throws Exception {
    SluiceProcess server = SluiceProcess.start(root, logs.resolve("server.log"),
        Duration.ofSeconds(90), List.of("-XX:+UseSerialGC", "-Xmn32m", "-Xlog:gc:stdout:none"),
        List.of());
    try {
      String payload = "\"" + "x".repeat(600) + "\"";
      JobCalls.enqueue(server, JOBS, PER_REQUEST, n -> JobCalls.job("backlog", payload));
      assertThat(fullCollectionsSinceListening(server)).as("while the backlog is held").isZero();

      try (TakeReader worker = new TakeReader(server, "queue=backlog&prefetch=" + PER_REQUEST)) {
        for (int done = 0; done < JOBS; done += PER_REQUEST) {
          List<JsonNode> jobs = worker.take(PER_REQUEST, Duration.ofSeconds(30));
          String ids = jobs.stream().map(job -> "\"" + job.get("id").textValue() + "\"")
              .collect(Collectors.joining(","));
          HttpResponse<String> ack = server.post("/jobs/success", "{\"ids\":[" + ids + "]}");
          assertThat(ack.statusCode()).as(ack.body()).isEqualTo(204);
        }
      }

      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (fullCollectionsSinceListening(server) == 0 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(fullCollectionsSinceListening(server)).as(server.output()).isEqualTo(1);
    } finally {
      server.forceStop();
    }
  }

  private static int fullCollectionsSinceListening(SluiceProcess server) {
    String output = server.output();
    String sinceListening = output.substring(Math.max(0, output.indexOf("(primary)")));
    return sinceListening.split(Pattern.quote(EXPLICIT_FULL_COLLECTION), -1).length - 1;
  }
}
