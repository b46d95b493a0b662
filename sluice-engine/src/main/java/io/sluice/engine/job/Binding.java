package io.sluice.engine.job;

/** A job's draw on one budget: {@code cost} tokens per dispatch. */
public record Binding(String key, long cost) {}
