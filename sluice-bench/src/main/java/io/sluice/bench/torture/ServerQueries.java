package io.sluice.bench.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.BenchFailure;
import io.sluice.bench.Endpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The blocking reads the main thread makes between cycles: how many jobs the server stores, and
 * at the end every job it still stores. Not part of the load, so plain {@code java.net.http}.
 */
final class ServerQueries {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final int PAGE = 2000;

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  /** {@code GET /jobs/count}: jobs stored in any status. */
  long count(Endpoint endpoint) {
    return get(endpoint, "/jobs/count").path("count").asLong();
  }

  /** Every stored job, walking {@code GET /jobs} pages; {@code seq} is -1 for another run's job. */
  List<PresentJob> listAll(Endpoint endpoint, String nonce) {
    List<PresentJob> jobs = new ArrayList<>();
    String next = "/jobs?limit=" + PAGE;
    while (next != null) {
      JsonNode page = get(endpoint, next);
      for (JsonNode job : page.path("jobs")) {
        JsonNode payload = job.path("payload");
        boolean ours = nonce.equals(payload.path("nonce").asText()) && payload.path("seq").canConvertToInt();
        jobs.add(new PresentJob(job.path("id").asText(), ours ? payload.path("seq").asInt() : -1,
            job.path("status").asText(), job.path("attempts").asInt()));
      }
      JsonNode link = page.path("pages").path("next");
      next = link.isTextual() ? link.asText() : null;
    }
    return jobs;
  }

  private JsonNode get(Endpoint endpoint, String pathAndQuery) {
    HttpRequest req = HttpRequest.newBuilder(URI.create(endpoint.url() + pathAndQuery))
        .timeout(TIMEOUT)
        .GET()
        .build();
    try {
      HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200) {
        throw new BenchFailure("GET " + pathAndQuery + " answered " + resp.statusCode() + ": "
            + new String(resp.body(), StandardCharsets.UTF_8));
      }
      return JSON.readTree(resp.body());
    } catch (IOException e) {
      throw new BenchFailure("GET " + pathAndQuery + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("GET " + pathAndQuery + " interrupted", e);
    }
  }
}
