package io.sluice.api.events;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.JobWriter;
import io.sluice.engine.QueueCounts;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.job.JobStatus;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Writes the feed's JSON messages (docs/events.md), one text frame each. */
final class ServerMessages {
  private static final JsonFactory JSON = new JsonFactory();

  /** The server's identity and clock, shared by the status and heartbeat messages. */
  record Server(String version, String apiVersion, long startedAtMs) {}

  @FunctionalInterface
  private interface Body {
    void write(JsonGenerator gen) throws IOException;
  }

  private ServerMessages() {}

  static String status(Server server, long nowMs, JobCounts counts, int budgets) {
    return message("status", null, gen -> {
      gen.writeNumberField("time", nowMs);
      gen.writeStringField("server_version", server.version());
      gen.writeStringField("api_version", server.apiVersion());
      gen.writeNumberField("started_at", server.startedAtMs());
      gen.writeNumberField("uptime_ms", Math.max(0, nowMs - server.startedAtMs()));
      gen.writeFieldName("counts");
      writeCounts(gen, counts.totals());
      gen.writeNumberField("budgets", budgets);
      gen.writeArrayFieldStart("queues");
      for (Map.Entry<String, QueueCounts> queue : counts.queues().entrySet()) {
        gen.writeStartObject();
        gen.writeStringField("queue", queue.getKey());
        writeCountFields(gen, queue.getValue());
        gen.writeEndObject();
      }
      gen.writeEndArray();
    });
  }

  /** {@code budgets}: whether budgets were created or deleted. */
  static String changed(Collection<JobStatus> statuses, List<String> queues, boolean budgets) {
    return message("changed", null, gen -> {
      gen.writeArrayFieldStart("statuses");
      for (JobStatus status : statuses) {
        gen.writeString(status.wireName());
      }
      gen.writeEndArray();
      gen.writeArrayFieldStart("queues");
      for (String queue : queues) {
        gen.writeString(queue);
      }
      gen.writeEndArray();
      gen.writeBooleanField("budgets", budgets);
    });
  }

  static String heartbeat(Server server, long nowMs) {
    return message("heartbeat", null, gen -> {
      gen.writeNumberField("time", nowMs);
      gen.writeNumberField("uptime_ms", Math.max(0, nowMs - server.startedAtMs()));
    });
  }

  /** {@code matches}: how many jobs of the tab the search matches; null when not known. */
  static String window(Long ref, JobWindow window, int limit, Search search, Long matches,
      boolean paused) {
    return message("window", ref, gen -> {
      gen.writeStringField("tab", window.tab().wireName());
      gen.writeNumberField("offset", window.offset());
      gen.writeNumberField("limit", limit);
      gen.writeNumberField("total", window.total());
      gen.writeBooleanField("paused", paused);
      writeSearch(gen, search);
      BudgetWire.writeNullableNumber(gen, "matches", matches);
      gen.writeArrayFieldStart("jobs");
      for (JobWindow.Row row : window.rows()) {
        gen.writeStartObject();
        gen.writeBooleanField("match", row.match());
        gen.writeNumberField("payload_bytes", row.payloadBytes());
        gen.writeFieldName("job");
        JobWriter.writeJob(gen, row.job(), row.payload());
        gen.writeEndObject();
      }
      gen.writeEndArray();
    });
  }

  static String budgets(Long ref, long nowMs, long offset, int limit, long total,
      List<BudgetState> page) {
    return message("budgets", ref, gen -> {
      gen.writeNumberField("as_of", nowMs);
      gen.writeNumberField("offset", offset);
      gen.writeNumberField("limit", limit);
      gen.writeNumberField("total", total);
      gen.writeArrayFieldStart("budgets");
      for (BudgetState state : page) {
        BudgetWire.writeBudget(gen, state, nowMs);
      }
      gen.writeEndArray();
    });
  }

  /** {@code samples}: the seconds not sent to this client yet, oldest first. */
  static String throughput(Long ref, int workers, List<Throughput.Sample> samples) {
    return message("throughput", ref, gen -> {
      gen.writeNumberField("interval_ms", Throughput.INTERVAL_MS);
      gen.writeNumberField("workers", workers);
      gen.writeArrayFieldStart("samples");
      for (Throughput.Sample sample : samples) {
        gen.writeStartObject();
        gen.writeNumberField("at", sample.atMs());
        gen.writeNumberField("enqueued", sample.enqueued());
        gen.writeNumberField("completed", sample.completed());
        gen.writeNumberField("failed", sample.failed());
        gen.writeEndObject();
      }
      gen.writeEndArray();
    });
  }

  static String found(Long ref, boolean forward, WindowReads.Found found) {
    return message("found", ref, gen -> {
      gen.writeStringField("direction", forward ? "next" : "previous");
      if (found == null) {
        gen.writeNullField("id");
        gen.writeNullField("offset");
      } else {
        gen.writeStringField("id", found.id().toString());
        gen.writeNumberField("offset", found.offset());
      }
    });
  }

  static String deleted(Long ref, String id) {
    return message("deleted", ref, gen -> gen.writeStringField("id", id));
  }

  /** {@code status} is the HTTP status the same failure would have had (400, 404, 500…). */
  static String error(Long ref, int status, String text) {
    return message("error", ref, gen -> {
      gen.writeNumberField("status", status);
      gen.writeStringField("message", text);
    });
  }

  private static void writeSearch(JsonGenerator gen, Search search) throws IOException {
    gen.writeObjectFieldStart("search");
    gen.writeArrayFieldStart("types");
    for (String term : search.types()) {
      gen.writeString(term);
    }
    gen.writeEndArray();
    gen.writeArrayFieldStart("queues");
    for (String term : search.queues()) {
      gen.writeString(term);
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }

  private static void writeCounts(JsonGenerator gen, QueueCounts counts) throws IOException {
    gen.writeStartObject();
    writeCountFields(gen, counts);
    gen.writeEndObject();
  }

  private static void writeCountFields(JsonGenerator gen, QueueCounts counts)
      throws IOException {
    for (JobStatus status : JobStatus.values()) {
      gen.writeNumberField(status.wireName(), counts.of(status));
    }
  }

  private static String message(String type, Long ref, Body body) {
    StringWriter text = new StringWriter(256);
    try (JsonGenerator gen = JSON.createGenerator(text)) {
      gen.writeStartObject();
      gen.writeStringField("type", type);
      if (ref != null) {
        gen.writeNumberField("ref", ref);
      }
      body.write(gen);
      gen.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }
}
