package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One job of a window as {@code sluice top} shows it. Times are epoch milliseconds, 0 when
 * absent; {@code payload} is the payload's JSON text, null when the feed left it out.
 */
public record JobRow(String id, String queue, String type, String status, int priority,
    int attempts, long readyAtMs, long dequeuedAtMs, String payload, int payloadBytes,
    String budgets, boolean match) {

  /** A row of a {@code window} message: {@code {"match", "payload_bytes", "job": {…}}}. */
  static JobRow from(JsonNode row) {
    JsonNode job = row.path("job");
    JsonNode payload = job.get("payload");
    StringBuilder budgets = new StringBuilder();
    for (JsonNode binding : job.path("budgets")) {
      if (budgets.length() > 0) {
        budgets.append(", ");
      }
      budgets.append(binding.path("key").asText()).append(" (cost ")
          .append(binding.path("cost").asText("1")).append(')');
    }
    return new JobRow(job.path("id").asText(), job.path("queue").asText(),
        job.path("type").asText(), job.path("status").asText(), job.path("priority").asInt(),
        job.path("attempts").asInt(), job.path("ready_at").asLong(),
        job.path("dequeued_at").asLong(), payload == null ? null : payload.toString(),
        row.path("payload_bytes").asInt(), budgets.toString(), row.path("match").asBoolean());
  }
}
