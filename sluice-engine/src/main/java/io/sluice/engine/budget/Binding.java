package io.sluice.engine.budget;

/** A job's draw on one budget: {@code cost} tokens per dispatch. */
public record Binding(String key, long cost) {}
