package io.sluice.client;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.NullNode;
import io.sluice.client.model.Backoff;
import io.sluice.client.model.Batch;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Retention;
import io.sluice.client.model.UniqueWhile;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Reads a {@link Job} field by field. Every job a worker receives is parsed once on its take
 * thread, and Jackson's generic path for records (a creator buffering every property) took most
 * of that thread's time. The nested values keep Jackson's own deserializers, resolved once.
 * Unknown fields are skipped, as everywhere in the client.
 */
final class JobDeserializer extends StdDeserializer<Job> implements ResolvableDeserializer {
  /** The job's fields read straight from the parser, which must hold a scalar there. */
  private static final Set<String> SCALARS = Set.of("id", "type", "queue", "priority",
      "attempts", "retry_limit", "unique_key", "duplicate", "folded");

  private JsonDeserializer<Object> status;
  private JsonDeserializer<Object> node;
  private JsonDeserializer<Object> instant;
  private JsonDeserializer<Object> backoff;
  private JsonDeserializer<Object> retention;
  private JsonDeserializer<Object> uniqueWhile;
  private JsonDeserializer<Object> batch;
  private JsonDeserializer<Object> budgets;

  JobDeserializer() {
    super(Job.class);
  }

  @Override
  public void resolve(DeserializationContext ctxt) throws JsonMappingException {
    status = ctxt.findRootValueDeserializer(ctxt.constructType(JobStatus.class));
    node = ctxt.findRootValueDeserializer(ctxt.constructType(JsonNode.class));
    instant = ctxt.findRootValueDeserializer(ctxt.constructType(Instant.class));
    backoff = ctxt.findRootValueDeserializer(ctxt.constructType(Backoff.class));
    retention = ctxt.findRootValueDeserializer(ctxt.constructType(Retention.class));
    uniqueWhile = ctxt.findRootValueDeserializer(ctxt.constructType(UniqueWhile.class));
    batch = ctxt.findRootValueDeserializer(ctxt.constructType(Batch.class));
    budgets = ctxt.findRootValueDeserializer(
        ctxt.getTypeFactory().constructCollectionType(List.class, BudgetBinding.class));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Job deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    JsonToken token = p.currentToken();
    if (token == JsonToken.START_OBJECT) {
      token = p.nextToken();
    }
    if (token != JsonToken.FIELD_NAME && token != JsonToken.END_OBJECT) {
      return (Job) ctxt.handleUnexpectedToken(Job.class, p);
    }
    String id = null;
    String type = null;
    String queue = null;
    int priority = 0;
    JobStatus jobStatus = null;
    JsonNode payload = null;
    Instant readyAt = null;
    int attempts = 0;
    Long retryLimit = null;
    Backoff jobBackoff = null;
    Retention jobRetention = null;
    Instant dequeuedAt = null;
    Instant failedAt = null;
    Instant completedAt = null;
    Instant purgeAt = null;
    String uniqueKey = null;
    UniqueWhile jobUniqueWhile = null;
    Batch jobBatch = null;
    List<BudgetBinding> jobBudgets = null;
    boolean duplicate = false;
    boolean folded = false;
    for (; token == JsonToken.FIELD_NAME; token = p.nextToken()) {
      String field = p.currentName();
      if (p.nextToken() == JsonToken.VALUE_NULL) {
        if (field.equals("payload")) {
          payload = NullNode.getInstance(); // a JSON null payload is a value, as in a tree
        }
        continue; // every other field's absent value
      }
      if (!p.currentToken().isScalarValue() && SCALARS.contains(field)) {
        // As the generic reader does; skipping into it would read its inner fields as the job's.
        ctxt.handleUnexpectedToken(Job.class, p);
        p.skipChildren();
        continue;
      }
      switch (field) {
        case "id" -> id = p.getValueAsString();
        case "type" -> type = p.getValueAsString();
        case "queue" -> queue = p.getValueAsString();
        case "priority" -> priority = p.getValueAsInt();
        case "status" -> jobStatus = (JobStatus) status.deserialize(p, ctxt);
        case "payload" -> payload = (JsonNode) node.deserialize(p, ctxt);
        case "ready_at" -> readyAt = (Instant) instant.deserialize(p, ctxt);
        case "attempts" -> attempts = p.getValueAsInt();
        case "retry_limit" -> retryLimit = p.getValueAsLong();
        case "backoff" -> jobBackoff = (Backoff) backoff.deserialize(p, ctxt);
        case "retention" -> jobRetention = (Retention) retention.deserialize(p, ctxt);
        case "dequeued_at" -> dequeuedAt = (Instant) instant.deserialize(p, ctxt);
        case "failed_at" -> failedAt = (Instant) instant.deserialize(p, ctxt);
        case "completed_at" -> completedAt = (Instant) instant.deserialize(p, ctxt);
        case "purge_at" -> purgeAt = (Instant) instant.deserialize(p, ctxt);
        case "unique_key" -> uniqueKey = p.getValueAsString();
        case "unique_while" -> jobUniqueWhile = (UniqueWhile) uniqueWhile.deserialize(p, ctxt);
        case "batch" -> jobBatch = (Batch) batch.deserialize(p, ctxt);
        case "budgets" -> jobBudgets = (List<BudgetBinding>) budgets.deserialize(p, ctxt);
        case "duplicate" -> duplicate = p.getValueAsBoolean();
        case "folded" -> folded = p.getValueAsBoolean();
        default -> p.skipChildren();
      }
    }
    return new Job(id, type, queue, priority, jobStatus, payload, readyAt, attempts, retryLimit,
        jobBackoff, jobRetention, dequeuedAt, failedAt, completedAt, purgeAt, uniqueKey,
        jobUniqueWhile, jobBatch, jobBudgets, duplicate, folded);
  }
}
