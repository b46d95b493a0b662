package io.sluice.engine.budget;

/**
 * When a budget (or every budget of a job) can next pay a cost (BUDGETS.md §3): now, at an
 * instant, only after a release, or never. Combining keeps the most blocking answer.
 */
public record Availability(Kind kind, long atMs) {
  public enum Kind {
    NOW,
    AT,
    ON_RELEASE,
    NEVER
  }

  public static final Availability NOW = new Availability(Kind.NOW, 0);
  public static final Availability ON_RELEASE = new Availability(Kind.ON_RELEASE, 0);
  public static final Availability NEVER = new Availability(Kind.NEVER, 0);

  public static Availability at(long atMs) {
    return new Availability(Kind.AT, atMs);
  }

  /** {@code Never > OnRelease > At > Now}; two {@code At}s combine to the later instant. */
  public Availability and(Availability other) {
    if (kind == Kind.AT && other.kind == Kind.AT) {
      return atMs >= other.atMs ? this : other;
    }
    return kind.ordinal() >= other.kind.ordinal() ? this : other;
  }
}
