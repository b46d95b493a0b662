package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.JobPatch;

/**
 * Reads a job merge patch (API.md §8.16): structural problems are 400s; a null queue or priority
 * and a bad queue name are 422s, as the spec has them.
 */
public final class PatchParser {
  private static final long U32_MAX = 0xFFFFFFFFL;

  private PatchParser() {}

  public static JobPatch parse(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the patch");
    String queue = null;
    if (body.has("queue")) {
      if (body.get("queue").isNull()) {
        throw new SluiceException.Unprocessable("queue cannot be null");
      }
      queue = fields.string(body, "queue");
      String violation = Names.violation("queue", queue);
      if (violation != null) {
        throw new SluiceException.Unprocessable(violation);
      }
    }
    Integer priority = null;
    if (body.has("priority")) {
      if (body.get("priority").isNull()) {
        throw new SluiceException.Unprocessable("priority cannot be null");
      }
      priority = (int) fields.unsigned(body, "priority", 65_535);
    }
    boolean setReadyAt = body.has("ready_at");
    Long readyAtMs = setReadyAt && !body.get("ready_at").isNull() ? fields.u64(body, "ready_at")
        : null;
    boolean setRetryLimit = body.has("retry_limit");
    Integer retryLimit = setRetryLimit && !body.get("retry_limit").isNull()
        ? (int) Math.min(Integer.MAX_VALUE, fields.unsigned(body, "retry_limit", U32_MAX))
        : null;
    boolean setBackoff = body.has("backoff");
    BackoffPolicy backoff = null;
    if (setBackoff && !body.get("backoff").isNull()) {
      Fields nested = fields.nested("backoff");
      JsonNode node = nested.object(body.get("backoff"), "backoff");
      backoff = new BackoffPolicy(nested.unsigned(node, "base_ms", U32_MAX),
          nested.float32(node, "exponent"), nested.unsigned(node, "jitter_ms", U32_MAX));
    }
    boolean setRetention = body.has("retention");
    boolean clearRetention = setRetention && body.get("retention").isNull();
    boolean setCompleted = false;
    Long completedMs = null;
    boolean setDead = false;
    Long deadMs = null;
    if (setRetention && !clearRetention) {
      Fields nested = fields.nested("retention");
      JsonNode node = nested.object(body.get("retention"), "retention");
      setCompleted = node.has("completed_ms");
      completedMs = setCompleted && !node.get("completed_ms").isNull()
          ? nested.u64(node, "completed_ms") : null;
      setDead = node.has("dead_ms");
      deadMs = setDead && !node.get("dead_ms").isNull() ? nested.u64(node, "dead_ms") : null;
    }
    return new JobPatch(queue, priority, setReadyAt, readyAtMs, setRetryLimit, retryLimit,
        setBackoff, backoff, setRetention, clearRetention, setCompleted, completedMs, setDead,
        deadMs);
  }
}
