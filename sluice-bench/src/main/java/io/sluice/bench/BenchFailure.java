package io.sluice.bench;

/**
 * A run-ending problem with a message meant for the person reading the bench output.
 * Unchecked so it can cross Vert.x callbacks and blocking waits without wrapping noise.
 */
final class BenchFailure extends RuntimeException {
  BenchFailure(String message) {
    super(message);
  }

  BenchFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
