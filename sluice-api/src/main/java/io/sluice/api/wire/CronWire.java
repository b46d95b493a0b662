package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.cron.CronEntry;
import io.sluice.engine.cron.CronEntryView;
import io.sluice.engine.cron.CronExpression;
import io.sluice.engine.cron.CronGroupView;
import io.sluice.engine.cron.CronZones;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupPatch;
import io.sluice.engine.cron.GroupSpec;
import io.sluice.engine.cron.InvalidCronExpressionException;
import io.sluice.engine.cron.InvalidTimezoneException;
import io.sluice.engine.cron.JobTemplate;
import io.sluice.engine.job.NewJob;
import java.io.IOException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Wire shapes of cron groups and entries (API.md §9.1). Every problem with a request, the job
 * template's included, is a 400 on the cron endpoints (§9.2); unknown fields are ignored.
 */
public final class CronWire {
  private CronWire() {}

  /** Checks a group name from a path that creates the group. */
  public static void checkGroupName(String name) {
    checkName("cron group name", name);
  }

  /** A {@code PUT /crons/{group}} body. */
  public static GroupSpec groupSpec(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the cron group");
    Boolean paused = Fields.absent(body, "paused") ? null : fields.bool(body, "paused");
    ZoneId zone = Fields.absent(body, "timezone") ? null : zone(fields.string(body, "timezone"));
    JsonNode array = fields.required(body, "entries");
    if (!array.isArray()) {
      throw fields.error("`entries` must be an array");
    }
    List<EntrySpec> entries = new ArrayList<>(array.size());
    Set<String> names = new HashSet<>();
    for (JsonNode element : array) {
      EntrySpec entry = entrySpec(format, fields.nested("entries[]"), element, null);
      if (!names.add(entry.name())) {
        throw new SluiceException.InvalidRequest(
            "duplicate cron entry name: \"" + entry.name() + "\"");
      }
      entries.add(entry);
    }
    return new GroupSpec(paused, zone, entries);
  }

  /** A {@code PATCH /crons/{group}} merge patch: a null timezone clears it. */
  public static GroupPatch groupPatch(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the cron group patch");
    Boolean paused = Fields.absent(body, "paused") ? null : fields.bool(body, "paused");
    boolean setZone = body.has("timezone");
    ZoneId zone = Fields.absent(body, "timezone") ? null : zone(fields.string(body, "timezone"));
    return new GroupPatch(paused, setZone, zone);
  }

  /**
   * An entry body; {@code pathName} (PUT of one entry) wins over any {@code name} in it, which
   * may then be omitted.
   */
  public static EntrySpec entrySpec(Format format, JsonNode body, String pathName) {
    return entrySpec(format, new Fields(format, ""), body, pathName);
  }

  private static EntrySpec entrySpec(Format format, Fields fields, JsonNode node,
      String pathName) {
    fields.object(node, "the cron entry");
    String name = pathName != null ? pathName : fields.string(node, "name");
    checkName("cron entry name", name);
    CronExpression expression = expression(fields.string(node, "expression"));
    ZoneId zone = Fields.absent(node, "timezone") ? null : zone(fields.string(node, "timezone"));
    Boolean paused = Fields.absent(node, "paused") ? null : fields.bool(node, "paused");
    NewJob job = template(format, fields, fields.required(node, "job"));
    return new EntrySpec(name, expression, zone, paused, job);
  }

  /** A {@code PATCH …/entries/{entry}} body: {@code paused}, required. */
  public static boolean entryPaused(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the cron entry patch");
    return fields.bool(body, "paused");
  }

  /** The template: an enqueue request (§8.2 checks) without {@code ready_at}. */
  private static NewJob template(Format format, Fields fields, JsonNode job) {
    fields.object(job, "job");
    if (!Fields.absent(job, "ready_at")) {
      throw new SluiceException.InvalidRequest("ready_at is not supported for cron entries");
    }
    EnqueueParser parser = new EnqueueParser(format);
    try (JsonParser tokens = job.traverse(format.mapper())) {
      tokens.nextToken();
      // Ids are made per fire, so the template has none.
      return parser.read(tokens, () -> null);
    } catch (SluiceException.Unprocessable e) {
      throw new SluiceException.InvalidRequest(e.getMessage());
    } catch (IOException e) {
      throw new BodyException(format, String.valueOf(e.getMessage()));
    }
  }

  private static CronExpression expression(String text) {
    try {
      return CronExpression.parse(text);
    } catch (InvalidCronExpressionException e) {
      throw new SluiceException.InvalidRequest("invalid cron expression: " + e.getMessage());
    }
  }

  private static ZoneId zone(String id) {
    try {
      return CronZones.parse(id);
    } catch (InvalidTimezoneException e) {
      throw new SluiceException.InvalidRequest(e.getMessage());
    }
  }

  private static void checkName(String field, String name) {
    String violation = Names.violation(field, name);
    if (violation != null) {
      throw new SluiceException.InvalidRequest(violation);
    }
  }

  // ---- responses -----------------------------------------------------------------------------

  public static void writeGroup(JsonGenerator gen, CronGroupView group) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("name", group.name());
    gen.writeBooleanField("paused", group.paused());
    writeTime(gen, "paused_at", group.pausedAtMs());
    writeTime(gen, "resumed_at", group.resumedAtMs());
    if (group.zone() != null) {
      gen.writeStringField("timezone", group.zone().getId());
    }
    gen.writeArrayFieldStart("entries");
    for (CronEntryView entry : group.entries()) {
      writeEntry(gen, entry);
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  public static void writeEntry(JsonGenerator gen, CronEntryView entry) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("name", entry.name());
    gen.writeStringField("expression", entry.expression());
    if (entry.zone() != null) {
      gen.writeStringField("timezone", entry.zone().getId());
    }
    gen.writeBooleanField("paused", entry.paused());
    writeTime(gen, "paused_at", entry.pausedAtMs());
    writeTime(gen, "resumed_at", entry.resumedAtMs());
    writeTime(gen, "next_enqueue_at", entry.nextEnqueueAtMs());
    writeTime(gen, "last_enqueue_at", entry.lastEnqueueAtMs());
    gen.writeFieldName("job");
    writeTemplate(gen, entry.job());
    gen.writeEndObject();
  }

  /** The template in enqueue-request shape: {@code priority} always, the rest when set. */
  private static void writeTemplate(JsonGenerator gen, JobTemplate job) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("type", job.type());
    gen.writeStringField("queue", job.queue());
    gen.writeFieldName("payload");
    JobWriter.writePayload(gen, job.payload());
    gen.writeNumberField("priority", job.priority());
    JobWriter.writeOverrides(gen, job.retryLimit(), job.backoff(), job.retention());
    JobWriter.writeUniqueAndBatch(gen, job.unique(), job.batch());
    BudgetWire.writeBindings(gen, job.budgets());
    gen.writeEndObject();
  }

  private static void writeTime(JsonGenerator gen, String field, long valueMs)
      throws IOException {
    if (valueMs != CronEntry.NONE) {
      gen.writeNumberField(field, valueMs);
    }
  }
}
