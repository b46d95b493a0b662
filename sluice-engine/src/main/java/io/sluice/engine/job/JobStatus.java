package io.sluice.engine.job;

/** Job lifecycle states with their wire names. */
public enum JobStatus {
  SCHEDULED("scheduled"),
  READY("ready"),
  IN_FLIGHT("in_flight"),
  COMPLETED("completed"),
  DEAD("dead");

  /** {@code values()} copies its array at every call; code that runs per job reads this one. */
  private static final JobStatus[] ALL = values();
  /** How many statuses there are. */
  public static final int COUNT = ALL.length;

  private final String wireName;

  JobStatus(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public boolean isTerminal() {
    return this == COMPLETED || this == DEAD;
  }

  /** The status whose ordinal is {@code ordinal}. */
  public static JobStatus ofOrdinal(int ordinal) {
    return ALL[ordinal];
  }

  public static JobStatus fromWireName(String name) {
    for (JobStatus s : ALL) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    return null;
  }
}
