package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.sluice.engine.BatchExpressions;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.BatchConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.thisptr.jackson.jq.JsonQuery;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.Versions;
import net.thisptr.jackson.jq.exception.JsonQueryException;

/**
 * Batch {@code when}/{@code fold} expressions (API.md §4.6) on jackson-jq: {@code null} as input,
 * {@code $existing} and {@code $new} bound to the two payloads. Compiled expressions are cached,
 * since a batch applies the same two expressions to every enqueue. Thread-safe.
 */
public final class JqBatchExpressions implements BatchExpressions {
  private static final int MAX_CACHED = 1024;
  static final String RECURSION_TOO_DEEP = "recursion too deep";
  /**
   * The evaluator of this server: enqueue-time checks and the engine's folds run the same
   * expressions, so they share one cache of compiled ones.
   */
  public static final JqBatchExpressions SHARED = new JqBatchExpressions();

  private final Map<String, JsonQuery> compiled = new ConcurrentHashMap<>();

  /** What went wrong in one expression, worded for the {@code <detail>} of an error. */
  private static final class ExpressionFailure extends Exception {
    final boolean compile;

    ExpressionFailure(String detail, boolean compile) {
      super(detail, null, false, false);
      this.compile = compile;
    }
  }

  /**
   * The enqueue-time check: both expressions compile, and a dry run with the incoming payload as
   * both {@code $existing} and {@code $new} succeeds, {@code fold} with exactly one output.
   *
   * @throws SluiceException.Unprocessable with the spec's {@code batch expression: …} or
   *     {@code batch dry-run: …} message
   */
  public void check(BatchConfig batch, byte[] payload) {
    JsonNode node = parse(payload);
    try {
      run(batch.when(), node, node);
    } catch (ExpressionFailure e) {
      throw failure("when", e);
    }
    List<JsonNode> outputs;
    try {
      outputs = run(batch.fold(), node, node);
    } catch (ExpressionFailure e) {
      throw failure("fold", e);
    }
    if (outputs.size() != 1) {
      throw new SluiceException.Unprocessable("batch dry-run: fold: " + outputCount(outputs));
    }
  }

  private static SluiceException.Unprocessable failure(String which, ExpressionFailure e) {
    return new SluiceException.Unprocessable((e.compile ? "batch expression: " : "batch dry-run: ")
        + which + ": " + e.getMessage());
  }

  /** Only the first output counts, so an error after it changes nothing. */
  @Override
  public boolean shouldFold(BatchConfig batch, byte[] existing, byte[] incoming) {
    List<JsonNode> outputs = new ArrayList<>(1);
    try {
      run(batch.when(), parse(existing), parse(incoming), outputs);
    } catch (ExpressionFailure e) {
      // Decided by the outputs before the failure, if any.
    }
    return !outputs.isEmpty() && truthy(outputs.get(0));
  }

  @Override
  public byte[] fold(BatchConfig batch, byte[] existing, byte[] incoming) {
    List<JsonNode> outputs;
    try {
      outputs = run(batch.fold(), parse(existing), parse(incoming));
    } catch (ExpressionFailure e) {
      throw new SluiceException.Unprocessable("batch fold failed: " + e.getMessage());
    }
    if (outputs.size() != 1) {
      throw new SluiceException.Unprocessable("batch fold failed: " + outputCount(outputs));
    }
    try {
      return Format.JSON.mapper().writeValueAsBytes(outputs.get(0));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String outputCount(List<JsonNode> outputs) {
    return "expected exactly one output, got " + outputs.size();
  }

  private List<JsonNode> run(String expression, JsonNode existing, JsonNode incoming)
      throws ExpressionFailure {
    return run(expression, existing, incoming, new ArrayList<>(1));
  }

  private List<JsonNode> run(String expression, JsonNode existing, JsonNode incoming,
      List<JsonNode> outputs) throws ExpressionFailure {
    JsonQuery query = compile(expression);
    Scope scope = JqScopes.child();
    scope.setValue("existing", existing);
    scope.setValue("new", incoming);
    try {
      query.apply(scope, NullNode.getInstance(), outputs::add);
    } catch (JsonQueryException e) {
      // jackson-jq looks functions up when it runs; jq itself refuses unknown ones at compile.
      boolean unknownFunction = String.valueOf(e.getMessage()).contains("does not exist");
      throw new ExpressionFailure(String.valueOf(e.getMessage()), unknownFunction);
    } catch (RuntimeException e) {
      throw new ExpressionFailure(String.valueOf(e.getMessage()), false);
    } catch (StackOverflowError e) {
      // Recursion without end (def f: f; f). The stack has unwound to here, and the engine
      // thread that folds must survive it.
      throw new ExpressionFailure(RECURSION_TOO_DEEP, false);
    }
    return outputs;
  }

  private JsonQuery compile(String expression) throws ExpressionFailure {
    JsonQuery query = compiled.get(expression);
    if (query != null) {
      return query;
    }
    try {
      query = JsonQuery.compile(expression, Versions.JQ_1_6);
    } catch (JsonQueryException e) {
      throw new ExpressionFailure(String.valueOf(e.getMessage()), true);
    }
    if (compiled.size() >= MAX_CACHED) {
      compiled.clear();
    }
    compiled.put(expression, query);
    return query;
  }

  private static boolean truthy(JsonNode value) {
    return !value.isNull() && !(value.isBoolean() && !value.booleanValue());
  }

  private static JsonNode parse(byte[] payload) {
    try {
      return Format.JSON.mapper().readTree(payload);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
