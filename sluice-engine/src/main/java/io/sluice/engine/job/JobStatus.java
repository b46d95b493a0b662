package io.sluice.engine.job;

/** Job lifecycle states with their wire names. */
public enum JobStatus {
  SCHEDULED("scheduled"),
  READY("ready"),
  IN_FLIGHT("in_flight"),
  COMPLETED("completed"),
  DEAD("dead");

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

  public static JobStatus fromWireName(String name) {
    for (JobStatus s : values()) {
      if (s.wireName.equals(name)) {
        return s;
      }
    }
    return null;
  }
}
