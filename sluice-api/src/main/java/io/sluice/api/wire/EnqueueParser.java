package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import java.util.Set;

/**
 * Turns one decoded enqueue object into a {@link NewJob}, applying the request-level checks of
 * API.md §8.2 in the spec's order. Every failure here is a 400; nothing is stored.
 */
public final class EnqueueParser {
  private static final long U32_MAX = 0xFFFFFFFFL;
  private static final Set<String> UNIQUE_SCOPES = Set.of("queued", "active", "exists");

  private final Fields fields;

  public EnqueueParser(Format format) {
    this.fields = new Fields(format, "");
  }

  public NewJob parse(JsonNode body, JobId id) {
    fields.object(body, "the job");
    String type = fields.string(body, "type");
    String queue = fields.string(body, "queue");
    JsonNode payload = fields.required(body, "payload");
    int priority = Fields.absent(body, "priority")
        ? NewJob.DEFAULT_PRIORITY
        : (int) fields.unsigned(body, "priority", 65_535);
    Long readyAtMs = Fields.absent(body, "ready_at") ? null : fields.u64(body, "ready_at");
    Integer retryLimit = Fields.absent(body, "retry_limit")
        ? null
        : (int) Math.min(Integer.MAX_VALUE, fields.unsigned(body, "retry_limit", U32_MAX));
    BackoffPolicy backoff = Fields.absent(body, "backoff") ? null : backoff(body.get("backoff"));
    RetentionPolicy retention =
        Fields.absent(body, "retention") ? null : retention(body.get("retention"));
    String uniqueKey = Fields.absent(body, "unique_key") ? null : fields.string(body, "unique_key");
    String uniqueWhile =
        Fields.absent(body, "unique_while") ? null : fields.string(body, "unique_while");
    boolean hasBatch = !Fields.absent(body, "batch");
    boolean hasBudgets = !Fields.absent(body, "budgets")
        && !(body.get("budgets").isArray() && body.get("budgets").isEmpty());
    if (hasBudgets && !body.get("budgets").isArray()) {
      throw fields.error("`budgets` must be an array");
    }

    rejectBadName("type", type);
    rejectBadName("queue", queue);
    if (uniqueWhile != null && uniqueKey == null) {
      throw new SluiceException.InvalidRequest("unique_while requires unique_key");
    }
    if (uniqueKey != null && hasBatch) {
      throw new SluiceException.InvalidRequest("unique_key and batch cannot be combined");
    }
    if (uniqueWhile != null && !UNIQUE_SCOPES.contains(uniqueWhile)) {
      throw new SluiceException.InvalidRequest("invalid unique_while: \"" + uniqueWhile
          + "\" (expected \"queued\", \"active\", or \"exists\")");
    }
    rejectUnbuilt(uniqueKey != null, "unique jobs");
    rejectUnbuilt(hasBatch, "batched jobs");
    rejectUnbuilt(hasBudgets, "budgets");
    return new NewJob(id, type, queue, priority, readyAtMs, retryLimit, backoff, retention,
        canonicalPayload(payload));
  }

  private BackoffPolicy backoff(JsonNode node) {
    Fields nested = fields.nested("backoff");
    nested.object(node, "backoff");
    return new BackoffPolicy(
        nested.unsigned(node, "base_ms", U32_MAX),
        nested.float32(node, "exponent"),
        nested.unsigned(node, "jitter_ms", U32_MAX));
  }

  private RetentionPolicy retention(JsonNode node) {
    Fields nested = fields.nested("retention");
    nested.object(node, "retention");
    Long completedMs = Fields.absent(node, "completed_ms") ? null : nested.u64(node, "completed_ms");
    Long deadMs = Fields.absent(node, "dead_ms") ? null : nested.u64(node, "dead_ms");
    RetentionPolicy policy = new RetentionPolicy(completedMs, deadMs);
    return policy.isEmpty() ? null : policy;
  }

  private static void rejectBadName(String field, String value) {
    String violation = Names.violation(field, value);
    if (violation != null) {
      throw new SluiceException.InvalidRequest(violation);
    }
  }

  /**
   * Features whose engine support has not landed yet are refused rather than silently ignored, so
   * a client never believes a guarantee that is not enforced.
   */
  private static void rejectUnbuilt(boolean requested, String feature) {
    if (requested) {
      throw new SluiceException.Unprocessable(feature + " are not supported by this server yet");
    }
  }

  private static byte[] canonicalPayload(JsonNode payload) {
    try {
      return Format.JSON.mapper().writeValueAsBytes(payload);
    } catch (JsonProcessingException e) {
      throw new SluiceException.InvalidRequest("invalid payload: " + e.getOriginalMessage());
    }
  }
}
