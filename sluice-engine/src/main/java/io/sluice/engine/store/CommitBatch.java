package io.sluice.engine.store;

import java.util.List;

/** The mutations of one engine turn, written as one atomic batch; {@code sync} asks for fsync. */
public record CommitBatch(List<Mutation> mutations, boolean sync) {}
