package io.sluice.client.model;

/**
 * Folds successive enqueues into one pending job (API.md §4.6): {@code when} and {@code fold}
 * are jq expressions over {@code $existing} and {@code $new}.
 */
public record Batch(String key, String when, String fold) {}
