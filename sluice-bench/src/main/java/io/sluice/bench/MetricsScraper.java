package io.sluice.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * {@code GET /metrics} from a client of its own (the JDK's, with its own threads), as a
 * Prometheus server is a process of its own: the bench's event loops, busy with the drain, must
 * not delay reading a scrape and so inflate its time. Each scrape is timed from sending the
 * request to the last byte of the body.
 */
final class MetricsScraper {

  /** One scrape: when it started (System.nanoTime), how long it took, and the body. */
  record Scrape(long startNanos, long nanos, byte[] body) {}

  private final HttpClient client;
  private final HttpRequest request;

  MetricsScraper(Endpoint admin, long timeoutSec) {
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(timeoutSec)).build();
    this.request = HttpRequest.newBuilder(URI.create(admin.url() + "/metrics"))
        .timeout(Duration.ofSeconds(timeoutSec)).build();
  }

  /** One scrape; anything but a 200 fails with the server's answer. */
  Scrape scrape() {
    long start = System.nanoTime();
    HttpResponse<byte[]> response;
    try {
      response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new BenchFailure("GET " + request.uri() + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted during GET " + request.uri());
    }
    long nanos = System.nanoTime() - start;
    if (response.statusCode() != 200) {
      throw new BenchFailure("GET " + request.uri() + " answered " + response.statusCode() + ": "
          + Snippet.of(io.vertx.core.buffer.Buffer.buffer(response.body())));
    }
    return new Scrape(start, nanos, response.body());
  }
}
