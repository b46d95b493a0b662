package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.PathSegments;
import io.sluice.api.http.RawChunks;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BulkAcks;
import io.sluice.api.wire.EnqueueParser;
import io.sluice.api.wire.Fields;
import io.sluice.api.wire.FilterParser;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.JobWriter;
import io.sluice.api.wire.Negotiation;
import io.sluice.api.wire.PlainJobWriter;
import io.sluice.api.wire.SettlementParser;
import io.sluice.api.wire.StreamFormat;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.Throttle;
import io.sluice.engine.store.JobStore;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** The job endpoints of API.md §8.1–§8.8, §8.11–§8.14 and §10. */
final class JobRoutes {
  private static final Set<String> NO_PARAMS = Set.of();
  private static final Set<String> TAKE_PARAMS = Set.of("queue", "prefetch");
  private static final Set<String> PAGE_PARAMS = Set.of("order", "limit", "from");
  private static final long U32_MAX = 0xFFFFFFFFL;
  /**
   * About the size of one job in an enqueue's answer, to size the response once; a job with
   * long names or options the layout declines grows it.
   */
  private static final int ENQUEUED_JOB_BYTES = 256;

  private final Vertx vertx;
  private final EngineGateway engine;
  private final JobStore store;
  private final InstantSource clock;
  private final JobIdGenerator ids;
  private final ApiConfig config;
  private final Set<TakeStream> streams;

  JobRoutes(Vertx vertx, EngineGateway engine, JobStore store, InstantSource clock,
      JobIdGenerator ids, ApiConfig config, Set<TakeStream> streams) {
    this.vertx = vertx;
    this.engine = engine;
    this.store = store;
    this.clock = clock;
    this.ids = ids;
    this.config = config;
    this.streams = streams;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/health", (ex, p) -> health(ex))
        .add(HttpMethod.GET, "/version", (ex, p) -> version(ex))
        .addDirect(HttpMethod.POST, "/jobs", (ex, p) -> enqueue(ex))
        .addDirect(HttpMethod.POST, "/jobs/bulk", (ex, p) -> enqueueBulk(ex))
        .add(HttpMethod.GET, "/jobs/take", (ex, p) -> take(ex))
        .addDirect(HttpMethod.POST, "/jobs/success", (ex, p) -> completeBulk(ex))
        .add(HttpMethod.GET, "/jobs/{id}", (ex, p) -> get(ex, p.get(0)))
        .add(HttpMethod.DELETE, "/jobs/{id}", (ex, p) -> delete(ex, p.get(0)))
        .add(HttpMethod.GET, "/queues", (ex, p) -> queues(ex))
        .add(HttpMethod.POST, "/reset", (ex, p) -> reset(ex))
        .addDirect(HttpMethod.POST, "/jobs/{id}/success", (ex, p) -> complete(ex, p.get(0)))
        .addDirect(HttpMethod.POST, "/jobs/{id}/failure", (ex, p) -> fail(ex, p.get(0)))
        .add(HttpMethod.GET, "/jobs/{id}/errors", (ex, p) -> errors(ex, p.get(0)))
        .add(HttpMethod.GET, "/jobs/{id}/errors/{attempt}",
            (ex, p) -> error(ex, p.get(0), p.get(1)));
  }

  static void health(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.send(200, gen -> {
      gen.writeStartObject();
      gen.writeStringField("status", "ok");
      gen.writeEndObject();
    });
  }

  private void version(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.send(200, gen -> {
      gen.writeStartObject();
      gen.writeStringField("version", ApiServer.API_VERSION);
      gen.writeEndObject();
    });
  }

  // ---- enqueue -------------------------------------------------------------------------------

  private void enqueue(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.rawBody(), new SingleEnqueue(ex));
  }

  /**
   * One {@code POST /jobs} from its body to the engine: the steps of the most frequent request
   * as two objects (with {@link SingleAnswer}), where lambdas were four, each made on C1 through
   * method handles it does not inline.
   */
  private final class SingleEnqueue implements Consumer<byte[]>, Supplier<JobId>,
      EngineLoop.Command<List<Enqueued>> {
    private final Exchange ex;
    private NewJob job;

    SingleEnqueue(Exchange ex) {
      this.ex = ex;
    }

    /** The body, read. */
    @Override
    public void accept(byte[] body) {
      job = new EnqueueParser(ex.requestFormat()).readOne(body, this);
      ex.respond(engine.call(EngineLoop.Kind.ENQUEUE, this), new SingleAnswer(ex));
    }

    /** The id of a job created, made when the body asks for none. */
    @Override
    public JobId get() {
      return ids.next(clock.millis());
    }

    /** On the engine thread. */
    @Override
    public List<Enqueued> apply(Engine eng, long nowMs) {
      return eng.enqueueAll(List.of(job), false, nowMs);
    }
  }

  /**
   * Lays out the answers to enqueues, one per thread that writes them: a writer's buffers made
   * for every answer were most of what a single enqueue's answer allocated.
   */
  private static final ThreadLocal<PlainJobWriter> ANSWER_WRITER =
      ThreadLocal.withInitial(PlainJobWriter::new);

  /** The answer to a {@code POST /jobs}: 201 with the job created, 200 when nothing was. */
  private static final class SingleAnswer implements Consumer<List<Enqueued>>,
      Exchange.BodyWriter {
    private final Exchange ex;
    private Enqueued answer;

    SingleAnswer(Exchange ex) {
      this.ex = ex;
    }

    @Override
    public void accept(List<Enqueued> answers) {
      answer = answers.get(0);
      ex.send(answer.created() ? 201 : 200, ENQUEUED_JOB_BYTES, this);
    }

    @Override
    public void write(JsonGenerator gen) throws IOException {
      ANSWER_WRITER.get().writeEnqueued(gen, answer.job(), answer.duplicate(), answer.folded());
    }
  }

  /** 200 when the request created nothing (every element a duplicate or fold), else 201. */
  private static int bulkStatus(List<Enqueued> answers) {
    boolean createdNone = !answers.isEmpty() && answers.stream().noneMatch(Enqueued::created);
    return createdNone ? 200 : 201;
  }

  private void enqueueBulk(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.rawBody(), body -> {
      long parsedAtMs = clock.millis();
      List<NewJob> jobs = new EnqueueParser(ex.requestFormat())
          .readBulk(body, () -> ids.next(parsedAtMs));
      ex.respond(engine.call(EngineLoop.Kind.ENQUEUE,
          (eng, nowMs) -> eng.enqueueAll(jobs, true, nowMs)),
          answers -> ex.send(bulkStatus(answers), answers.size() * ENQUEUED_JOB_BYTES, gen -> {
            gen.writeStartObject();
            gen.writeArrayFieldStart("jobs");
            PlainJobWriter writer = ANSWER_WRITER.get();
            for (Enqueued answer : answers) {
              writer.writeEnqueued(gen, answer.job(), answer.duplicate(), answer.folded());
            }
            gen.writeEndArray();
            gen.writeEndObject();
          }));
    });
  }

  // ---- take ----------------------------------------------------------------------------------

  private void take(Exchange ex) {
    MultiMap query = ex.query(TAKE_PARAMS);
    StreamFormat format = Negotiation.streamFormat(ex.request().getHeader("Accept"));
    if (format == null) {
      throw new Negotiation.NotAcceptable(Negotiation.STREAM_TYPES);
    }
    Set<String> queues = FilterParser.values(query.get("queue"));
    int prefetch = prefetch(query.get("prefetch"));
    String workerId = ex.request().getHeader("Worker-Id");
    TakeStream stream = new TakeStream(vertx, ex.request().response(),
        RawChunks.below(ex.request()), format, engine, store, config.heartbeatMs(),
        workerId == null ? "anonymous" : workerId);
    streams.add(stream);
    ex.request().response().endHandler(v -> streams.remove(stream));
    stream.open(queues, prefetch, ex.request().version());
  }

  private static int prefetch(String value) {
    if (value == null || value.isEmpty()) {
      return 1;
    }
    try {
      int prefetch = Integer.parseInt(value);
      if (prefetch >= 0 && prefetch <= 65_535) {
        return prefetch;
      }
    } catch (NumberFormatException e) {
      // Reported below with the same message as an out-of-range value.
    }
    throw new SluiceException.InvalidRequest(
        "invalid query parameters: prefetch must be an integer between 0 and 65535");
  }

  // ---- acknowledgements ----------------------------------------------------------------------

  private void complete(Exchange ex, String rawId) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    JobId id = JobId.parseOrNull(rawId);
    if (id == null) {
      throw new SluiceException.NotFound("job not found in in-flight set");
    }
    ex.respond(ex.bodyIfAny(), body -> {
      Fields fields = new Fields(ex.requestFormat(), "");
      fields.object(body, "the request");
      List<Settlement> settlements = SettlementParser.budgets(fields, body);
      ex.respond(engine.call(EngineLoop.Kind.COMPLETE, (eng, nowMs) -> {
        eng.complete(id, settlements, nowMs);
        return null;
      }), done -> ex.noContent());
    });
  }

  private void completeBulk(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.rawBody(), new BulkCompletion(ex));
  }

  /**
   * One {@code POST /jobs/success}, from its body to the engine, as one object where lambdas were
   * three (see {@link SingleEnqueue}); a body that cannot be read fails in {@link #accept}, which
   * {@link Exchange#respond} answers with its error.
   */
  private final class BulkCompletion implements Consumer<byte[]>,
      EngineLoop.Command<List<String>> {
    private final Exchange ex;
    private BulkAcks acks;

    BulkCompletion(Exchange ex) {
      this.ex = ex;
    }

    @Override
    public void accept(byte[] body) {
      acks = BulkAcks.read(ex.requestFormat(), body);
      ex.respond(engine.call(EngineLoop.Kind.COMPLETE, this), new BulkCompletionAnswer(ex));
    }

    /** On the engine thread. */
    @Override
    public List<String> apply(Engine eng, long nowMs) {
      return eng.completeAll(acks.ids(), acks.settlements(), nowMs);
    }
  }

  /** 204 when every id was in flight, else 422 naming those that were not. */
  private static final class BulkCompletionAnswer implements Consumer<List<String>> {
    private final Exchange ex;

    BulkCompletionAnswer(Exchange ex) {
      this.ex = ex;
    }

    @Override
    public void accept(List<String> notFound) {
      if (notFound.isEmpty()) {
        ex.noContent();
        return;
      }
      ex.sendList(422, "not_found", notFound);
    }
  }

  private void fail(Exchange ex, String rawId) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      FailureReport report = parseFailure(ex.requestFormat(), body);
      List<Settlement> settlements =
          SettlementParser.budgets(new Fields(ex.requestFormat(), ""), body);
      JobId id = JobId.parseOrNull(rawId);
      if (id == null) {
        throw new SluiceException.NotFound("job not found in in-flight set");
      }
      ex.respond(engine.call((eng, nowMs) -> eng.fail(id, report, settlements, nowMs)),
          job -> ex.send(200, gen -> JobWriter.writeJob(gen, job, null)));
    });
  }

  private static FailureReport parseFailure(Format format, JsonNode body) {
    Fields fields = new Fields(format, "");
    fields.object(body, "the failure report");
    String message = fields.string(body, "message");
    String errorType = Fields.absent(body, "error_type") ? null : fields.string(body, "error_type");
    String backtrace = Fields.absent(body, "backtrace") ? null : fields.string(body, "backtrace");
    Long retryAtMs = Fields.absent(body, "retry_at") ? null : fields.u64(body, "retry_at");
    boolean kill = !Fields.absent(body, "kill") && fields.bool(body, "kill");
    Throttle throttle = Fields.absent(body, "throttle") ? null
        : parseThrottle(fields.nested("throttle"), body.get("throttle"));
    return new FailureReport(message, errorType, backtrace, retryAtMs, kill,
        ThreadLocalRandom.current().nextDouble(), throttle);
  }

  /** X6: {@code retry_after_ms} is read as a pause's {@code for_ms} is. */
  private static Throttle parseThrottle(Fields fields, JsonNode node) {
    fields.object(node, "throttle");
    String budget = fields.string(node, "budget");
    String partition = Fields.absent(node, "partition") ? null : fields.string(node, "partition");
    return new Throttle(budget, partition, fields.u64(node, "retry_after_ms"));
  }

  // ---- reads ---------------------------------------------------------------------------------

  private void get(Exchange ex, String rawId) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(engine.call((eng, nowMs) -> eng.get(id, nowMs)), job -> {
      byte[] payload = job.payload() != null ? job.payload() : store.readPayload(job.id());
      if (payload == null) {
        throw new SluiceException.NotFound("job not found");
      }
      ex.send(200, gen -> JobWriter.writeJob(gen, job, payload));
    });
  }

  private void delete(Exchange ex, String rawId) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(engine.call((eng, nowMs) -> {
      eng.delete(id, nowMs);
      return null;
    }), done -> ex.noContent());
  }

  private void queues(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.queueNames()),
        names -> ex.sendList(200, "queues", names));
  }

  private void reset(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> {
      eng.reset(nowMs);
      return null;
    }), done -> ex.noContent());
  }

  private void errors(Exchange ex, String rawId) {
    MultiMap query = ex.query(PAGE_PARAMS);
    ex.responseFormat();
    boolean descending = Pagination.descending(query.get("order"));
    int limit = Pagination.limit(query.get("limit"));
    String fromText = query.get("from");
    long from = fromText == null || fromText.isEmpty() ? 0 : sequenceNumber(fromText,
        "invalid query parameters: from must be a non-negative integer");
    boolean hasFrom = fromText != null && !fromText.isEmpty();
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(engine.call((eng, nowMs) -> eng.get(id, nowMs)), job -> {
      // Descending from record 1 or 0 has nothing before it; afterSequence 0 would mean "from
      // the newest" to the store.
      List<ErrorRecord> page = descending && hasFrom && from <= 1
          ? List.of()
          : store.readErrors(job.id(), hasFrom ? from : 0, descending, limit + 1);
      boolean more = page.size() > limit;
      List<ErrorRecord> shown = more ? page.subList(0, limit) : page;
      String base = "/jobs/" + PathSegments.encode(rawId) + "/errors?";
      ex.send(200, gen -> {
        gen.writeStartObject();
        gen.writeArrayFieldStart("errors");
        for (ErrorRecord error : shown) {
          JobWriter.writeError(gen, error);
        }
        gen.writeEndArray();
        Pagination.writePages(gen, base, hasFrom ? Long.toString(from) : null, descending,
            "&limit=" + limit,
            shown.isEmpty() ? null : Long.toString(shown.get(0).sequence()),
            shown.isEmpty() ? null : Long.toString(shown.get(shown.size() - 1).sequence()), more);
        gen.writeEndObject();
      });
    });
  }

  /**
   * {@code GET /jobs/{id}/errors/{n}}: the n-th error record of the job, which is the record of
   * attempt n until the job is first throttled (X6).
   */
  private void error(Exchange ex, String rawId, String rawNumber) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    long sequence = sequenceNumber(rawNumber, "invalid attempt: \"" + rawNumber + "\"");
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(engine.call((eng, nowMs) -> eng.get(id, nowMs)), job -> {
      ErrorRecord error = store.readError(job.id(), sequence);
      if (error == null) {
        throw new SluiceException.NotFound("error record not found");
      }
      ex.send(200, gen -> JobWriter.writeError(gen, error));
    });
  }

  private static long sequenceNumber(String value, String message) {
    try {
      long number = Long.parseLong(value);
      if (number >= 0 && number <= U32_MAX) {
        return number;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new SluiceException.InvalidRequest(message);
  }
}
