package io.sluice.engine.job;

/** A job's {@code batch}: its key and the jq expressions that govern folds (API.md §4.6). */
public record BatchConfig(String key, String when, String fold) {}
