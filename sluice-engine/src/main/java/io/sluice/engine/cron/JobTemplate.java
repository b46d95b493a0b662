package io.sluice.engine.cron;

import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.util.List;

/**
 * What a cron entry enqueues each time it fires: an enqueue request without id or
 * {@code ready_at}, whose budget bindings were resolved when the entry was installed (BUDGETS.md
 * §9). {@code payload} is canonical JSON and never modified; null fields take the server defaults
 * or mean "not unique" / "not batched".
 */
public record JobTemplate(
    String type,
    String queue,
    int priority,
    Integer retryLimit,
    BackoffPolicy backoff,
    RetentionPolicy retention,
    byte[] payload,
    List<Binding> budgets,
    UniqueKey unique,
    BatchConfig batch) {

  /** The template of a parsed request, with its bindings as resolved at installation. */
  public static JobTemplate of(NewJob request, List<Binding> budgets) {
    return new JobTemplate(request.type(), request.queue(), request.priority(),
        request.retryLimit(), request.backoff(), request.retention(), request.payload(),
        List.copyOf(budgets), request.unique(), request.batch());
  }

  /**
   * The job one fire enqueues. Its bindings name exact costs and no {@code create_with}: the
   * budgets exist, since deleting one is refused while a template binds it.
   */
  public NewJob toNewJob(JobId id, long readyAtMs) {
    List<BindingRequest> requests =
        budgets.stream()
            .map(b -> new BindingRequest(b.key(), b.cost(), null, b.partition())).toList();
    return new NewJob(id, type, queue, priority, readyAtMs, retryLimit, backoff, retention,
        payload, requests, unique, batch);
  }
}
