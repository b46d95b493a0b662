package io.sluice.engine.job;

/** A job's {@code unique_key} and the scope in which it deduplicates (API.md §4.5). */
public record UniqueKey(String key, Scope scope) {

  /** {@code unique_while}: while a holder conflicts with newcomers and keeps its claim. */
  public enum Scope {
    QUEUED("queued"),
    ACTIVE("active"),
    EXISTS("exists");

    private final String wireName;

    Scope(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }

    public static Scope fromWireName(String name) {
      for (Scope scope : values()) {
        if (scope.wireName.equals(name)) {
          return scope;
        }
      }
      return null;
    }

    /**
     * True when a job in {@code status} is covered by this scope: a newcomer with this scope is
     * its duplicate, and a holder with this scope keeps its claim.
     */
    public boolean covers(JobStatus status) {
      return switch (this) {
        case QUEUED -> status == JobStatus.SCHEDULED || status == JobStatus.READY;
        case ACTIVE -> !status.isTerminal();
        case EXISTS -> true;
      };
    }
  }
}
