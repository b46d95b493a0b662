package io.sluice.bench;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Blocking, always-bounded waits for the main thread. Every phase of a run goes through here so
 * that a stuck server turns into a failed run with a readable reason, never a hung bench.
 */
public final class Await {
  private Await() {}

  public static <T> T result(Future<T> future, long timeout, TimeUnit unit, String what) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(timeout, unit);
    } catch (TimeoutException e) {
      throw new BenchFailure(what + " did not finish within " + unit.toSeconds(timeout) + " s");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BenchFailure bf) {
        throw new BenchFailure(what + ": " + bf.getMessage(), bf);
      }
      throw new BenchFailure(what + " failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure(what + " interrupted", e);
    }
  }

  public static void quietly(Future<?> future, long timeoutMillis) {
    try {
      future.toCompletionStage().toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception ignored) {
      // Used for cleanup only: a connection that fails to close politely is closed anyway.
    }
  }
}
