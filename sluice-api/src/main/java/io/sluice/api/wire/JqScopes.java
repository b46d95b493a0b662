package io.sluice.api.wire;

import net.thisptr.jackson.jq.BuiltinFunctionLoader;
import net.thisptr.jackson.jq.Scope;
import net.thisptr.jackson.jq.Versions;

/**
 * Scopes for evaluating jq, children of one scope holding jq 1.6's builtin functions. That scope
 * is loaded on the first evaluation, not when a server starts: loading the builtins took about a
 * tenth of a second of every start, interpreted, and most servers never evaluate jq.
 */
final class JqScopes {
  private JqScopes() {}

  /** A fresh scope for one evaluation. */
  static Scope child() {
    return Scope.newChildScope(Builtins.SCOPE);
  }

  /** Initialized by the JVM on first use, once, whatever the threads. */
  private static final class Builtins {
    static final Scope SCOPE = load();

    private static Scope load() {
      Scope scope = Scope.newEmptyScope();
      BuiltinFunctionLoader.getInstance().loadFunctions(Versions.JQ_1_6, scope);
      return scope;
    }
  }
}
