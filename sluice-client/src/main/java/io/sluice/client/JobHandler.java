package io.sluice.client;

import io.sluice.client.model.Job;

/**
 * Processes one job. Returning normally completes it; throwing fails it: a
 * {@link KillJobException} makes it dead, a {@link RetryJobException} reschedules it at a chosen
 * time, a {@link ThrottledException} pauses a budget and requeues it without counting the
 * attempt (X6), any other exception leaves the retry to the server's backoff and retry limit.
 *
 * @param <T> the type the payload is mapped to
 */
@FunctionalInterface
public interface JobHandler<T> {
  void handle(T payload, Job job) throws Exception;
}
