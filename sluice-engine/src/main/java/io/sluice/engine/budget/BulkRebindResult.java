package io.sluice.engine.budget;

import java.util.List;

/** Outcome of a bulk binding change: jobs changed, and in-flight ids that would have changed. */
public record BulkRebindResult(int changed, List<String> blocked) {}
