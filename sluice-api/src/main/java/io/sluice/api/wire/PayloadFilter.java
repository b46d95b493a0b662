package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.sluice.engine.SluiceException;
import net.thisptr.jackson.jq.JsonQuery;
import net.thisptr.jackson.jq.Versions;
import net.thisptr.jackson.jq.exception.JsonQueryException;

/**
 * The jq {@code filter} of job queries (API.md §4.7): a job matches when the expression yields at
 * least one truthy output for its payload; a runtime error (a stack overflow included) means no
 * match. Thread-safe.
 */
public final class PayloadFilter {

  private final String expression;
  private final JsonQuery query;

  private PayloadFilter(String expression, JsonQuery query) {
    this.expression = expression;
    this.query = query;
  }

  /** Compiles the expression; a syntax error is a 400. */
  public static PayloadFilter compile(String expression) {
    JsonQuery query;
    try {
      query = JsonQuery.compile(expression, Versions.JQ_1_6);
    } catch (JsonQueryException e) {
      throw new SluiceException.InvalidRequest("invalid filter: " + e.getMessage());
    }
    // jackson-jq resolves function names when it runs, so a dry run on null finds the names jq
    // itself would refuse to compile; other runtime errors are data-dependent and allowed.
    try {
      query.apply(JqScopes.child(), NullNode.getInstance(), out -> { });
    } catch (JsonQueryException e) {
      if (String.valueOf(e.getMessage()).contains("does not exist")) {
        throw new SluiceException.InvalidRequest("invalid filter: " + e.getMessage());
      }
    } catch (RuntimeException e) {
      // Data-dependent failure on null input: not a compile error.
    } catch (StackOverflowError e) {
      // Recursion without end (def f: f; f) would overflow again on every payload scanned.
      throw new SluiceException.InvalidRequest(
          "invalid filter: " + JqBatchExpressions.RECURSION_TOO_DEEP);
    }
    return new PayloadFilter(expression, query);
  }

  public String expression() {
    return expression;
  }

  public boolean matches(JsonNode payload) {
    boolean[] truthy = {false};
    try {
      query.apply(JqScopes.child(), payload, out -> {
        if (!out.isNull() && !(out.isBoolean() && !out.booleanValue())) {
          truthy[0] = true;
        }
      });
    } catch (JsonQueryException | RuntimeException | StackOverflowError e) {
      return false; // a runtime error, deep recursion on this payload included, is no match
    }
    return truthy[0];
  }
}
