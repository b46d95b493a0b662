package io.sluice.engine.budget;

/** The two budget strategies with their wire names (BUDGETS.md §1). */
public enum StrategyType {
  WHILE_IN_FLIGHT("while_in_flight"),
  TIME_BASED("time_based");

  private final String wireName;

  StrategyType(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static StrategyType fromWireName(String name) {
    for (StrategyType type : values()) {
      if (type.wireName.equals(name)) {
        return type;
      }
    }
    return null;
  }
}
