package io.sluice.engine.job;

/** A job's own retention override; a null field falls back to the server default. */
public record RetentionPolicy(Long completedMs, Long deadMs) {
  public boolean isEmpty() {
    return completedMs == null && deadMs == null;
  }
}
