package io.sluice.api;

import io.sluice.engine.EngineLoop;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** Submits engine commands from an event loop and resumes on that event loop with the result. */
public final class EngineGateway {
  private final EngineLoop loop;

  public EngineGateway(EngineLoop loop) {
    this.loop = loop;
  }

  public <T> Future<T> call(EngineLoop.Command<T> command) {
    return call(EngineLoop.Kind.OTHER, command);
  }

  /** An enqueue or an acknowledgement, counted against the per-commit limits. */
  public <T> Future<T> call(EngineLoop.Kind kind, EngineLoop.Command<T> command) {
    Context context = Vertx.currentContext();
    return Future.fromCompletionStage(loop.submit(kind, command), context);
  }

  /** Fire-and-forget: for stream bookkeeping whose outcome the caller does not wait on. */
  public void post(EngineLoop.Command<?> command) {
    loop.submit(command);
  }
}
