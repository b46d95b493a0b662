package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Times {@code GET /jobs/{id}/wait} (X2) for jobs parked behind one budget: the first and the
 * last jobs of the waiting queue, asked in turn over one keep-alive connection, so the figure
 * covers the shallowest and the deepest rank. Target: p99 within 5 ms with 1,000,000 parked.
 */
final class WaitProbe {
  static final long TARGET_P99_MICROS = 5_000;
  private static final int SAMPLE_IDS = 100;
  private static final int REQUESTS = 2_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BudgetEnv env;

  WaitProbe(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run(String queue) {
    try (TimedGets gets = new TimedGets(env.kit(), env.endpoint(), 0, 60)) {
      List<String> ids = new ArrayList<>(sampleIds(gets, queue, "asc"));
      ids.addAll(sampleIds(gets, queue, "desc"));
      for (String id : ids) {
        gets.get(waitUri(id)).expectOk();
      }
      long[] micros = new long[REQUESTS];
      long deepestAhead = 0;
      for (int i = 0; i < REQUESTS; i++) {
        TimedGets.Answer answer = gets.get(waitUri(ids.get(i % ids.size()))).expectOk();
        micros[i] = answer.nanos() / 1_000;
        deepestAhead = Math.max(deepestAhead, aheadJobs(answer));
      }
      Distribution d = Distribution.of(micros);
      boolean met = d.p99() <= TARGET_P99_MICROS;
      env.say("[wait] GET /jobs/{id}/wait x %,d over the first and last %d parked jobs (up to %,d"
          + " ahead): p50 %.2f ms, p99 %.2f ms, max %.2f ms (target p99 <= %d ms: %s)",
          REQUESTS, SAMPLE_IDS, deepestAhead, d.p50() / 1e3, d.p99() / 1e3, d.max() / 1e3,
          TARGET_P99_MICROS / 1_000, BudgetEnv.verdict(met));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("wait_requests", REQUESTS);
      m.put("wait_deepest_ahead", deepestAhead);
      m.put("wait_p50_ms", d.p50() / 1e3);
      m.put("wait_p99_ms", d.p99() / 1e3);
      m.put("wait_max_ms", d.max() / 1e3);
      m.put("wait_target_met", met);
      return m;
    }
  }

  private static String waitUri(String id) {
    return "/jobs/" + id + "/wait";
  }

  private static List<String> sampleIds(TimedGets gets, String queue, String order) {
    TimedGets.Answer page = gets.get("/jobs?queue=" + queue + "&status=ready&order=" + order
        + "&limit=" + SAMPLE_IDS).expectOk();
    List<String> ids = new ArrayList<>();
    for (JsonNode job : tree(page).path("jobs")) {
      ids.add(job.path("id").asText());
    }
    if (ids.isEmpty()) {
      throw new BenchFailure("no parked job found on queue " + queue);
    }
    return ids;
  }

  private static long aheadJobs(TimedGets.Answer answer) {
    JsonNode budgets = tree(answer).path("budgets");
    return budgets.isEmpty() ? 0 : budgets.get(0).path("ahead").path("jobs").asLong();
  }

  private static JsonNode tree(TimedGets.Answer answer) {
    try {
      return JSON.readTree(answer.body().getBytes());
    } catch (IOException e) {
      throw new BenchFailure("unreadable answer to GET " + answer.uri() + ": " + e.getMessage());
    }
  }
}
