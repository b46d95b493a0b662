package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * Open batches survive SIGKILL (API.md §4.6, CLI.md §2.3): the open-batch pointer and the folded
 * payload are durable once a fold is answered, so after a restart on the same root directory the
 * next fold goes into the same job, and a batch sealed before the crash stays sealed.
 */
class BatchCrashTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FOLD_ITEMS = "{items: ($existing.items + $new.items)}";
  private static final String WHEN_UP_TO_3 =
      "($existing.items | length) + ($new.items | length) <= 3";

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();


  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void foldsAfterSigkillGoIntoTheSameJob() throws Exception {
    Path root = tmp.resolve("root");

    // Before the crash: an open batch folded into (single and bulk), and a batch sealed by a
    // later one in another queue.
    SluiceProcess first = start(root);
    String open = id(expect(first.post("/jobs", job("open", "k-open", "true", 1)), 201, false));
    assertThat(id(expect(first.post("/jobs", job("open", "k-open", "true", 2)), 200, true)))
        .isEqualTo(open);
    HttpResponse<String> bulk = first.post("/jobs/bulk", "{\"jobs\":["
        + job("open", "k-open", "true", 3) + "," + job("open", "k-open", "true", 4) + "]}");
    assertThat(bulk.statusCode()).as(bulk.body()).isEqualTo(200);
    for (JsonNode answer : JSON.readTree(bulk.body()).get("jobs")) {
      assertThat(answer.get("folded").asBoolean()).isTrue();
      assertThat(id(answer)).isEqualTo(open);
    }
    String sealed = id(expect(first.post("/jobs", job("sealed", "k-seal", WHEN_UP_TO_3, 10, 11)),
        201, false));
    expect(first.post("/jobs", job("sealed", "k-seal", WHEN_UP_TO_3, 12)), 200, true);
    String successor = id(expect(first.post("/jobs", job("sealed", "k-seal", WHEN_UP_TO_3, 13)),
        201, false));
    assertThat(successor).isNotEqualTo(sealed);
    assertThat(payload(first, open)).isEqualTo(items(1, 2, 3, 4));

    assertThat(first.sigkill()).isEqualTo(CrashServers.SIGKILL_STATUS);

    // After the restart: the same jobs keep folding, with the pre-crash payloads.
    SluiceProcess second = start(root);
    assertThat(payload(second, open)).isEqualTo(items(1, 2, 3, 4));
    JsonNode folded = expect(second.post("/jobs", job("other-queue", "k-open", "false", 5)),
        200, true);
    assertThat(id(folded)).as("the post-crash fold goes into the pre-crash job").isEqualTo(open);
    assertThat(folded.get("queue").asText()).isEqualTo("open");
    assertThat(payload(second, open)).isEqualTo(items(1, 2, 3, 4, 5));

    assertThat(id(expect(second.post("/jobs", job("sealed", "k-seal", WHEN_UP_TO_3, 14)), 200,
        true))).isEqualTo(successor);
    assertThat(payload(second, successor)).isEqualTo(items(13, 14));
    assertThat(payload(second, sealed)).as("the sealed job is intact")
        .isEqualTo(items(10, 11, 12));

    // A worker receives the whole folded payload once.
    TakeReader stream = servers.take(second, "queue=open&prefetch=0");
    assertThat(stream.status(Duration.ofSeconds(10))).isEqualTo(200);
    List<JsonNode> delivered = stream.take(1, Duration.ofSeconds(10));
    assertThat(delivered).hasSize(1);
    assertThat(id(delivered.get(0))).isEqualTo(open);
    assertThat(delivered.get(0).get("payload")).isEqualTo(items(1, 2, 3, 4, 5));
    assertThat(stream.poll(Duration.ofMillis(200))).as("one job in the queue").isNull();
  }

  // ---------------------------------------------------------------------------------------------

  private SluiceProcess start(Path root) throws Exception {
    return servers.start(root, tmp);
  }

  private static String job(String queue, String key, String when, int... items) {
    ObjectNode job = JSON.createObjectNode();
    job.put("type", "digest");
    job.put("queue", queue);
    job.set("payload", items(items));
    job.putObject("batch").put("key", key).put("when", when).put("fold", FOLD_ITEMS);
    return job.toString();
  }

  private static JsonNode items(int... items) {
    ObjectNode payload = JSON.createObjectNode();
    ArrayNode array = payload.putArray("items");
    for (int item : items) {
      array.add(item);
    }
    return payload;
  }

  private static JsonNode expect(HttpResponse<String> response, int status, boolean folded)
      throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(response.body());
    assertThat(body.get("folded").asBoolean()).as(response.body()).isEqualTo(folded);
    assertThat(body.get("duplicate").asBoolean()).as(response.body()).isFalse();
    return body;
  }

  private static String id(JsonNode job) {
    return job.get("id").asText();
  }

  private static JsonNode payload(SluiceProcess server, String id) throws Exception {
    HttpResponse<String> response = server.get("/jobs/" + id);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body()).get("payload");
  }
}
