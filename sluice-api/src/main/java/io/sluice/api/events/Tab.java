package io.sluice.api.events;

import io.sluice.engine.job.JobStatus;

/** The lists a client of the events feed can subscribe to: three job statuses and the budgets. */
public enum Tab {
  IN_FLIGHT("in_flight", JobStatus.IN_FLIGHT),
  READY("ready", JobStatus.READY),
  SCHEDULED("scheduled", JobStatus.SCHEDULED),
  BUDGETS("budgets", null);

  private final String wireName;
  private final JobStatus status;

  Tab(String wireName, JobStatus status) {
    this.wireName = wireName;
    this.status = status;
  }

  public String wireName() {
    return wireName;
  }

  /** The status whose jobs the tab lists; null for the budgets tab. */
  public JobStatus status() {
    return status;
  }

  public boolean listsJobs() {
    return status != null;
  }

  /** The tab of this wire name, or null. */
  public static Tab fromWireName(String name) {
    for (Tab tab : values()) {
      if (tab.wireName.equals(name)) {
        return tab;
      }
    }
    return null;
  }
}
