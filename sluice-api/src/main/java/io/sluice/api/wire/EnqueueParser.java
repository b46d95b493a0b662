package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads enqueue requests (API.md §8.2) straight from a JSON or MessagePack token stream, copying
 * each payload once into its canonical JSON form; no document tree is built for the job list. A
 * JSON body of the plain shape {@link PlainEnqueueReader} knows is read by it instead, to the same
 * jobs. The body passed {@link Bodies#checked} first, so every string in it is Unicode text.
 * Request-level checks follow the spec's order; every failure here is a 400, except features not
 * built yet, which are 422.
 */
public final class EnqueueParser {
  /** The highest {@code priority} (API.md §8.2). */
  static final int MAX_PRIORITY = 65_535;
  private static final long U32_MAX = 0xFFFFFFFFL;
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
  private static final JsonFactory PAYLOAD_JSON = new JsonFactory();

  private final Format format;
  private final Fields fields;
  /** Made with the generator: a plain body, read byte by byte, needs neither. */
  private ByteArrayBuilder payloadBytes;
  /**
   * One generator serves every payload of a request: creating one costs more than copying a small
   * payload. A parser is made per request, and a request that fails mid-payload is refused whole.
   */
  private JsonGenerator payloadGenerator;
  /** The JSON body being read, whose payloads are copied byte for byte when already compact. */
  private byte[] jsonBody;

  public EnqueueParser(Format format) {
    this.format = format;
    this.fields = new Fields(format, "");
  }

  /** Reads the body of a single enqueue ({@code POST /jobs}). */
  public NewJob readOne(byte[] body, Supplier<JobId> ids) {
    NewJob plain = format == Format.JSON ? PlainEnqueueReader.readOne(body, ids) : null;
    return plain != null ? plain : readOneTokens(body, ids);
  }

  /** {@link #readOne} through Jackson's token stream, whatever the body holds. */
  NewJob readOneTokens(byte[] body, Supplier<JobId> ids) {
    try (JsonParser tokens = open(body)) {
      tokens.nextToken();
      NewJob job = read(tokens, ids);
      expectEnd(tokens);
      return job;
    } catch (IOException e) {
      throw fields.error(String.valueOf(e.getMessage()));
    }
  }

  /**
   * Reads the body of a bulk enqueue ({@code POST /jobs/bulk}). Runs every job's request-level
   * (400) checks before reporting any 422, so the error named is the first job's structural
   * problem when there is one. Only the {@code jobs} field is read.
   */
  public List<NewJob> readBulk(byte[] body, Supplier<JobId> ids) {
    List<NewJob> plain = format == Format.JSON ? PlainEnqueueReader.readBulk(body, ids) : null;
    return plain != null ? plain : readBulkTokens(body, ids);
  }

  /** {@link #readBulk} through Jackson's token stream, whatever the body holds. */
  List<NewJob> readBulkTokens(byte[] body, Supplier<JobId> ids) {
    List<NewJob> jobs = new ArrayList<>();
    SluiceException firstUnprocessable = null;
    boolean sawJobs = false;
    try (JsonParser tokens = open(body)) {
      if (tokens.nextToken() != JsonToken.START_OBJECT) {
        throw fields.error("expected the request to be an object");
      }
      while (tokens.nextToken() == JsonToken.FIELD_NAME) {
        String name = tokens.currentName();
        JsonToken value = tokens.nextToken();
        if (!name.equals("jobs")) {
          tokens.skipChildren();
          continue;
        }
        if (value != JsonToken.START_ARRAY) {
          throw fields.error("`jobs` must be an array");
        }
        sawJobs = true;
        for (int i = 0; tokens.nextToken() != JsonToken.END_ARRAY; i++) {
          try {
            jobs.add(read(tokens, ids));
          } catch (SluiceException.Unprocessable e) {
            // Raised after the whole job object was read, so the stream is already past it.
            if (firstUnprocessable == null) {
              firstUnprocessable = new SluiceException.Unprocessable(
                  "jobs[" + i + "]: " + e.getMessage());
            }
          } catch (BodyException e) {
            throw new BodyException("jobs[" + i + "]: " + e.getMessage());
          } catch (SluiceException.InvalidRequest e) {
            throw new SluiceException.InvalidRequest("jobs[" + i + "]: " + e.getMessage());
          }
        }
      }
      expectEnd(tokens);
    } catch (JsonProcessingException e) {
      throw BodyException.from(format, e);
    } catch (IOException e) {
      throw fields.error(String.valueOf(e.getMessage()));
    }
    if (!sawJobs) {
      throw fields.error("missing field `jobs`");
    }
    if (firstUnprocessable != null) {
      throw firstUnprocessable;
    }
    return jobs;
  }

  private JsonParser open(byte[] body) {
    try {
      JsonParser parser = format.mapper().createParser(body);
      // Only a parser reading the body's bytes knows where a payload lies in them: MessagePack is
      // not JSON text, and JSON in UTF-16 or UTF-32 is read through characters.
      jsonBody = parser instanceof UTF8StreamJsonParser ? body : null;
      return parser;
    } catch (IOException e) {
      throw fields.error(String.valueOf(e.getMessage()));
    }
  }

  /**
   * Fails unless the parser has consumed the whole document (no trailing content). MessagePack
   * bodies were already checked whole by {@link MsgpackValidator}, and its parser throws at the
   * end instead of returning null.
   */
  private void expectEnd(JsonParser parser) throws IOException {
    if (format == Format.JSON && parser.nextToken() != null) {
      throw fields.error("trailing content after the document");
    }
  }

  /** Reads one job object; the parser is positioned on its START_OBJECT token. */
  public NewJob read(JsonParser parser, Supplier<JobId> ids) {
    try {
      return readJob(parser, ids);
    } catch (JsonProcessingException e) {
      throw BodyException.from(format, e);
    } catch (IOException e) {
      throw fields.error(String.valueOf(e.getMessage()));
    } catch (NumberFormatException e) {
      // A decimal whose exponent overflows (1e9999999999), met copying a payload exactly.
      throw fields.error(String.valueOf(e.getMessage()));
    }
  }

  private NewJob readJob(JsonParser parser, Supplier<JobId> ids) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      throw fields.error("expected the job to be an object");
    }
    String type = null;
    String queue = null;
    byte[] payload = null;
    Integer priority = null;
    Long readyAtMs = null;
    Integer retryLimit = null;
    BackoffPolicy backoff = null;
    RetentionPolicy retention = null;
    String uniqueKey = null;
    String uniqueWhile = null;
    BatchConfig batch = null;
    List<BindingRequest> budgets = List.of();
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      if (name.equals("payload")) {
        payload = copyPayload(parser);
        continue;
      }
      if (value == JsonToken.VALUE_NULL) {
        continue; // Optional fields treat null as absent; required ones are reported missing.
      }
      switch (name) {
        case "type" -> type = string(parser, name);
        case "queue" -> queue = string(parser, name);
        case "priority" -> priority = (int) unsigned(parser, name, MAX_PRIORITY);
        case "ready_at" -> readyAtMs = u64(parser, name);
        case "retry_limit" ->
            retryLimit = (int) Math.min(Integer.MAX_VALUE, unsigned(parser, name, U32_MAX));
        case "backoff" -> backoff = backoff(parser.readValueAsTree());
        case "retention" -> retention = retention(parser.readValueAsTree());
        case "unique_key" -> uniqueKey = string(parser, name);
        case "unique_while" -> uniqueWhile = string(parser, name);
        case "batch" -> batch = batch(parser.readValueAsTree());
        case "budgets" -> budgets = readBindings(parser);
        default -> parser.skipChildren();
      }
    }
    if (type == null) {
      throw fields.error("missing field `type`");
    }
    if (queue == null) {
      throw fields.error("missing field `queue`");
    }
    if (payload == null) {
      throw fields.error("missing field `payload`");
    }
    rejectBadName("type", type);
    rejectBadName("queue", queue);
    if (uniqueWhile != null && uniqueKey == null) {
      throw new SluiceException.InvalidRequest("unique_while requires unique_key");
    }
    if (uniqueKey != null && batch != null) {
      throw new SluiceException.InvalidRequest("unique_key and batch cannot be combined");
    }
    if (uniqueWhile != null && UniqueKey.Scope.fromWireName(uniqueWhile) == null) {
      throw new SluiceException.InvalidRequest("invalid unique_while: \"" + uniqueWhile
          + "\" (expected \"queued\", \"active\", or \"exists\")");
    }
    if (batch != null) {
      JqBatchExpressions.SHARED.check(batch, payload);
    }
    UniqueKey unique = uniqueKey == null ? null : new UniqueKey(uniqueKey,
        uniqueWhile == null ? UniqueKey.Scope.QUEUED : UniqueKey.Scope.fromWireName(uniqueWhile));
    return new NewJob(ids.get(), type, queue, priority == null ? NewJob.DEFAULT_PRIORITY : priority,
        readyAtMs, retryLimit, backoff, retention, payload, budgets, unique, batch);
  }

  /** The {@code budgets} array, read token by token (the common case is one small binding). */
  private List<BindingRequest> readBindings(JsonParser parser) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw fields.error("`budgets` must be an array");
    }
    List<BindingRequest> bindings = new ArrayList<>(2);
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      if (parser.currentToken() != JsonToken.START_OBJECT) {
        throw fields.error("expected each of `budgets` to be an object");
      }
      String key = null;
      Long cost = null;
      PolicySpec createWith = null;
      String partition = null;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (value == JsonToken.VALUE_NULL && !name.equals("key")) {
          continue;
        }
        switch (name) {
          case "key" -> key = string(parser, "budgets[].key");
          case "cost" -> cost = unsigned(parser, "budgets[].cost", U32_MAX);
          case "create_with" -> createWith = BudgetWire.policySpec(
              fields.nested("budgets[].create_with"), parser.readValueAsTree());
          case "partition" -> partition = string(parser, "budgets[].partition");
          default -> parser.skipChildren();
        }
      }
      if (key == null) {
        throw fields.error("missing field `budgets[].key`");
      }
      bindings.add(new BindingRequest(key, cost, createWith, partition));
    }
    return bindings;
  }

  /**
   * The payload value under the parser as compact JSON, exactly (no float rounding). In a JSON
   * body that writes it compactly already, that is the bytes it came in: the parser has checked
   * them while skipping the value, and a copy of them costs a fraction of re-encoding.
   */
  private byte[] copyPayload(JsonParser parser) throws IOException {
    if (jsonBody == null) {
      return reencodePayload(parser);
    }
    int start = (int) parser.currentTokenLocation().getByteOffset();
    int end = CompactJson.end(jsonBody, start);
    if (end < 0) {
      return reencodePayload(parser);
    }
    parser.skipChildren();
    return Arrays.copyOfRange(jsonBody, start, end);
  }

  /** Re-encodes the payload value under the parser as compact JSON, exactly. */
  private byte[] reencodePayload(JsonParser parser) throws IOException {
    JsonGenerator gen = payloadGenerator();
    payloadBytes.reset();
    int depth = 0;
    do {
      JsonToken token = parser.currentToken();
      if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
        depth++;
      } else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
        depth--;
      }
      gen.copyCurrentEventExact(parser);
    } while (depth > 0 && parser.nextToken() != null);
    gen.flush();
    return payloadBytes.toByteArray();
  }

  private JsonGenerator payloadGenerator() throws IOException {
    if (payloadGenerator == null) {
      payloadBytes = new ByteArrayBuilder(256);
      payloadGenerator = PAYLOAD_JSON.createGenerator(payloadBytes);
      // Each payload is a root value of its own; no separator may leak into the next one.
      payloadGenerator.setRootValueSeparator(null);
    }
    return payloadGenerator;
  }

  private String string(JsonParser parser, String name) throws IOException {
    if (parser.currentToken() != JsonToken.VALUE_STRING) {
      throw fields.error("`" + name + "` must be a string");
    }
    return parser.getText();
  }

  private long unsigned(JsonParser parser, String name, long max) throws IOException {
    BigInteger number = integer(parser, name);
    if (number.signum() < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
      throw fields.error("`" + name + "` out of range (0 to " + max + ")");
    }
    return number.longValueExact();
  }

  private long u64(JsonParser parser, String name) throws IOException {
    BigInteger number = integer(parser, name);
    if (number.signum() < 0 || number.compareTo(U64_MAX) > 0) {
      throw fields.error("`" + name + "` out of range (0 to " + U64_MAX + ")");
    }
    return number.bitLength() > 63 ? Long.MAX_VALUE : number.longValue();
  }

  private BigInteger integer(JsonParser parser, String name) throws IOException {
    if (parser.currentToken() != JsonToken.VALUE_NUMBER_INT) {
      throw fields.error("`" + name + "` must be a non-negative integer");
    }
    return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
        ? parser.getBigIntegerValue()
        : BigInteger.valueOf(parser.getLongValue());
  }

  private BatchConfig batch(JsonNode node) {
    Fields nested = fields.nested("batch");
    nested.object(node, "batch");
    return new BatchConfig(nested.string(node, "key"), nested.string(node, "when"),
        nested.string(node, "fold"));
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
}
