package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls and small utilities for the job query endpoints ({@code GET /jobs}, {@code GET
 * /jobs/count}, API.md §7, §8.9, §8.10), shared by the {@code Query*HttpTest} and
 * {@code JobMutation*HttpTest} classes. Every call goes through {@link ServerFixture}, so it is
 * bounded by {@link ServerFixture#TIMEOUT}.
 */
final class QueryClient {
  private QueryClient() {}

  /** Percent-encodes one query value (spaces as {@code %20}, never {@code +}). */
  static String enc(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String dec(String value) {
    return URLDecoder.decode(value, StandardCharsets.UTF_8);
  }

  /** {@code GET /jobs?<query>} asserting 200 and a JSON answer; returns the body. */
  static JsonNode list(ServerFixture server, String query) {
    Reply reply = server.get(query.isEmpty() ? "/jobs" : "/jobs?" + query);
    assertThat(reply.status()).as("GET /jobs?%s -> %s", query, reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    return reply.json();
  }

  /** Follows a {@code pages} link (an absolute path with query), asserting 200. */
  static JsonNode follow(ServerFixture server, String link) {
    assertThat(link).as("link").startsWith("/jobs");
    Reply reply = server.get(link);
    assertThat(reply.status()).as("GET %s -> %s", link, reply).isEqualTo(200);
    return reply.json();
  }

  /** The ids of {@code GET /jobs?<query>&limit=2000}, in answer order. */
  static List<String> listIds(ServerFixture server, String query) {
    return ids(list(server, query.isEmpty() ? "limit=2000" : query + "&limit=2000"));
  }

  /** The ids of the {@code jobs} array of a listing, in answer order. */
  static List<String> ids(JsonNode page) {
    JsonNode jobs = page.get("jobs");
    assertThat(jobs).as("jobs member of %s", page).isNotNull();
    assertThat(jobs.isArray()).isTrue();
    List<String> ids = new ArrayList<>();
    for (JsonNode job : jobs) {
      ids.add(ServerFixture.id(job));
    }
    return ids;
  }

  /** The single job a listing by {@code id} returns. */
  static JsonNode listedJob(ServerFixture server, String id) {
    JsonNode page = list(server, "id=" + id);
    assertThat(page.get("jobs").size()).as("jobs listed for id=%s: %s", id, page).isEqualTo(1);
    return page.get("jobs").get(0);
  }

  /** {@code GET /jobs/count?<query>} asserting 200; returns the count. */
  static long count(ServerFixture server, String query) {
    Reply reply = server.get(query.isEmpty() ? "/jobs/count" : "/jobs/count?" + query);
    assertThat(reply.status()).as("GET /jobs/count?%s -> %s", query, reply).isEqualTo(200);
    JsonNode body = reply.json();
    assertThat(body.size()).as("only `count` in %s", body).isEqualTo(1);
    assertThat(body.get("count").isIntegralNumber()).as("count in %s", body).isTrue();
    return body.get("count").longValue();
  }

  /** A link's query parameters in order, values percent-decoded. */
  static Map<String, String> linkParams(String link) {
    int question = link.indexOf('?');
    assertThat(question).as("query string in %s", link).isPositive();
    Map<String, String> params = new LinkedHashMap<>();
    for (String pair : link.substring(question + 1).split("&")) {
      int eq = pair.indexOf('=');
      assertThat(eq).as("name=value in %s", link).isPositive();
      String previous = params.put(pair.substring(0, eq), dec(pair.substring(eq + 1)));
      assertThat(previous).as("repeated parameter in %s", link).isNull();
    }
    return params;
  }
}
