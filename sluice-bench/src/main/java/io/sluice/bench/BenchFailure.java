package io.sluice.bench;

/**
 * A run-ending problem with a message meant for the person reading the bench output.
 * Unchecked so it can cross Vert.x callbacks and blocking waits without wrapping noise.
 */
public final class BenchFailure extends RuntimeException {
  public BenchFailure(String message) {
    super(message);
  }

  public BenchFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
