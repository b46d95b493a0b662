package io.sluice.engine;

/** What start-up recovery loaded, and how long its two reading phases took. */
public record RecoveryReport(int jobs, long budgetsAndCronsMs, long jobsMs) {}
