package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unique-key claims across a SIGKILL (API.md §4.5, §4.1): claims of queued jobs and of retained
 * {@code exists} jobs survive, a {@code queued} job that was in flight comes back ready holding its
 * claim, and keys released before the crash stay free.
 */
class UniqueCrashTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long RETAIN_MS = 600_000;

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();


  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void claimsSurviveSigkillAsTheirScopesSay() throws Exception {
    Path root = tmp.resolve("root");
    SluiceProcess first = start(root);

    // Ready holders of every scope (never taken).
    String readyQueued = created(first, job("ready", "k-ready-queued", "queued", null));
    String readyActive = created(first, job("ready", "k-ready-active", "active", null));
    String readyExists = created(first, job("ready", "k-ready-exists", "exists", null));
    String readyDefault = created(first, job("ready", "k-ready-default", null, null));

    // A queued-scope job in flight at the crash.
    String flying = created(first, job("flight", "k-flying", "queued", null));
    TakeReader flight = openTake(first, "queue=flight&prefetch=1");
    assertThat(flight.status(Duration.ofSeconds(10))).isEqualTo(200);
    List<JsonNode> flown = flight.take(1, Duration.ofSeconds(10));
    assertThat(flown).extracting(j -> j.get("id").asText()).containsExactly(flying);
    assertThat(status(first, flying)).isEqualTo("in_flight");

    // Completed with retention: exists keeps its claim; active and queued released theirs.
    TakeReader done = openTake(first, "queue=done&prefetch=1");
    assertThat(done.status(Duration.ofSeconds(10))).isEqualTo(200);
    String doneExists = completed(first, done, job("done", "k-done-exists", "exists", RETAIN_MS));
    String doneActive = completed(first, done, job("done", "k-done-active", "active", RETAIN_MS));
    String doneQueued = completed(first, done, job("done", "k-done-queued", "queued", RETAIN_MS));

    // Sanity before the crash.
    assertDuplicate(first, job("x", "k-done-exists", "exists", null), doneExists, "completed");
    assertThat(first.sigkill()).isEqualTo(CrashServers.SIGKILL_STATUS);
    assertThat(flight.awaitEnd(Duration.ofSeconds(10))).isTrue();

    SluiceProcess second = start(root);

    // Ready holders of every scope are still duplicated.
    assertDuplicate(second, job("y", "k-ready-queued", "queued", null), readyQueued, "ready");
    assertDuplicate(second, job("y", "k-ready-active", "active", null), readyActive, "ready");
    assertDuplicate(second, job("y", "k-ready-exists", "exists", null), readyExists, "ready");
    assertDuplicate(second, job("y", "k-ready-default", null, null), readyDefault, "ready");
    JsonNode stored = getJob(second, readyDefault);
    assertThat(stored.get("unique_key").asText()).isEqualTo("k-ready-default");
    assertThat(stored.get("unique_while").asText()).isEqualTo("queued");

    // The in-flight queued job came back ready and holds its claim again.
    JsonNode back = getJob(second, flying);
    assertThat(back.get("status").asText()).isEqualTo("ready");
    assertThat(back.get("attempts").asInt()).isZero();
    assertDuplicate(second, job("y", "k-flying", "queued", null), flying, "ready");

    // The completed exists job still holds its key.
    assertDuplicate(second, job("y", "k-done-exists", "exists", null), doneExists, "completed");

    // Keys released before the crash are free: new jobs are created.
    assertThat(status(second, doneActive)).isEqualTo("completed");
    String newActive = created(second, job("y", "k-done-active", "active", null));
    assertThat(newActive).isNotEqualTo(doneActive);
    assertThat(status(second, doneQueued)).isEqualTo("completed");
    String newQueued = created(second, job("y", "k-done-queued", "queued", null));
    assertThat(newQueued).isNotEqualTo(doneQueued);
    // ...and those new jobs hold the keys now.
    assertDuplicate(second, job("z", "k-done-active", "active", null), newActive, "ready");
    assertDuplicate(second, job("z", "k-done-queued", "queued", null), newQueued, "ready");

    HttpResponse<String> count = second.get("/jobs/count?queue=y");
    assertThat(JSON.readTree(count.body()).get("count").asInt()).isEqualTo(2);
    assertThat(JSON.readTree(second.get("/jobs/count?queue=z").body()).get("count").asInt())
        .isZero();
  }

  // ---------------------------------------------------------------------------------------------

  private SluiceProcess start(Path root) throws Exception {
    return servers.start(root, tmp);
  }

  private TakeReader openTake(SluiceProcess server, String query) {
    return servers.take(server, query);
  }

  private static String job(String queue, String key, String scope, Long completedRetentionMs) {
    ObjectNode job = JSON.createObjectNode();
    job.put("type", "unique_crash");
    job.put("queue", queue);
    job.putObject("payload").put("key", key);
    job.put("unique_key", key);
    if (scope != null) {
      job.put("unique_while", scope);
    }
    if (completedRetentionMs != null) {
      job.putObject("retention").put("completed_ms", completedRetentionMs);
    }
    return job.toString();
  }

  /** Enqueues and asserts 201 with {@code duplicate: false}; returns the id. */
  private static String created(SluiceProcess server, String json) throws Exception {
    HttpResponse<String> response = server.post("/jobs", json);
    assertThat(response.statusCode()).as("enqueue %s -> %s", json, response.body())
        .isEqualTo(201);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("duplicate").asBoolean(true)).isFalse();
    return body.get("id").asText();
  }

  private static void assertDuplicate(SluiceProcess server, String json, String holderId,
      String holderStatus) throws Exception {
    HttpResponse<String> response = server.post("/jobs", json);
    assertThat(response.statusCode()).as("enqueue %s -> %s", json, response.body())
        .isEqualTo(200);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("duplicate").asBoolean(false)).as(response.body()).isTrue();
    assertThat(body.get("id").asText()).as(response.body()).isEqualTo(holderId);
    assertThat(body.get("status").asText()).as(response.body()).isEqualTo(holderStatus);
  }

  /** Enqueues {@code json}, takes it on {@code stream} and acknowledges it; returns the id. */
  private static String completed(SluiceProcess server, TakeReader stream, String json)
      throws Exception {
    String id = created(server, json);
    List<JsonNode> taken = stream.take(1, Duration.ofSeconds(10));
    assertThat(taken).extracting(j -> j.get("id").asText()).containsExactly(id);
    HttpResponse<String> ack = server.http().send(
        HttpRequest.newBuilder(server.uri("/jobs/" + id + "/success"))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ack.statusCode()).as("ack %s: %s", id, ack.body()).isEqualTo(204);
    assertThat(status(server, id)).isEqualTo("completed");
    return id;
  }

  private static JsonNode getJob(SluiceProcess server, String id) throws Exception {
    HttpResponse<String> response = server.get("/jobs/" + id);
    assertThat(response.statusCode()).as("GET /jobs/%s: %s", id, response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private static String status(SluiceProcess server, String id) throws Exception {
    return getJob(server, id).get("status").asText();
  }
}
