package io.sluice.client;

import io.sluice.client.model.Job;
import io.sluice.client.model.Settlement;
import java.util.List;

/**
 * A {@link JobHandler} that knows what the job really cost once it is done (an LLM call's tokens,
 * bytes sent) and returns it: the job is acknowledged with those settlements (EXTENSIONS.md X5).
 * Throwing fails the job exactly as for a {@link JobHandler}.
 *
 * @param <T> the type the payload is mapped to
 */
@FunctionalInterface
public interface CostedJobHandler<T> {
  List<Settlement> handle(T payload, Job job) throws Exception;
}
