package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/** Bulk enqueues, full listings and counts against a server process, asserting success. */
final class JobCalls {
  static final ObjectMapper JSON = new ObjectMapper();
  /** The largest page GET /jobs serves (API.md §7.3). */
  private static final int PAGE = 2000;

  private JobCalls() {}

  /** The body of one job of {@code queue}; {@code payload} is a JSON value. */
  static String job(String queue, String payload) {
    return "{\"type\":\"work\",\"queue\":\"" + queue + "\",\"payload\":" + payload + "}";
  }

  /** Enqueues jobs {@code 0..count-1} in requests of {@code perRequest}; returns their ids. */
  static List<String> enqueue(SluiceProcess server, int count, int perRequest,
      IntFunction<String> jobBody) throws Exception {
    List<String> ids = new ArrayList<>(count);
    for (int first = 0; first < count; first += perRequest) {
      StringBuilder body = new StringBuilder("{\"jobs\":[");
      for (int n = first; n < Math.min(count, first + perRequest); n++) {
        body.append(n == first ? "" : ",").append(jobBody.apply(n));
      }
      ids.addAll(enqueueBulk(server, body.append("]}").toString()));
    }
    return ids;
  }

  /** POST /jobs/bulk; returns the new jobs' ids in order. */
  static List<String> enqueueBulk(SluiceProcess server, String body) throws Exception {
    HttpResponse<String> response = server.post("/jobs/bulk", body);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    List<String> ids = new ArrayList<>();
    for (JsonNode job : JSON.readTree(response.body()).get("jobs")) {
      ids.add(job.get("id").textValue());
    }
    return ids;
  }

  /** Every stored job's status by id, read through GET /jobs page by page. */
  static Map<String, String> statusById(SluiceProcess server) throws Exception {
    Map<String, String> statuses = new LinkedHashMap<>();
    String next = "/jobs?limit=" + PAGE;
    while (next != null) {
      HttpResponse<String> response = server.get(next);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      JsonNode page = JSON.readTree(response.body());
      for (JsonNode job : page.get("jobs")) {
        statuses.put(job.get("id").textValue(), job.get("status").textValue());
      }
      JsonNode link = page.get("pages").get("next");
      next = link.isNull() ? null : link.textValue();
    }
    return statuses;
  }

  /** GET /jobs/count with {@code query} (may be empty). */
  static long count(SluiceProcess server, String query) throws Exception {
    HttpResponse<String> response =
        server.get("/jobs/count" + (query.isEmpty() ? "" : "?" + query));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body()).get("count").longValue();
  }

  /** DELETE /jobs with {@code query}; returns how many were deleted. */
  static long deleteAll(SluiceProcess server, String query) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(server.uri("/jobs?" + query)).DELETE().build();
    return send(server, request).get("deleted").longValue();
  }

  /** PATCH /jobs with {@code query} and a JSON merge patch; returns how many were patched. */
  static long patchAll(SluiceProcess server, String query, String patch) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(server.uri("/jobs?" + query))
        .header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(patch))
        .build();
    return send(server, request).get("patched").longValue();
  }

  private static JsonNode send(SluiceProcess server, HttpRequest request) throws Exception {
    HttpResponse<String> response =
        server.http().send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
