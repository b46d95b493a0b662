package io.sluice.client;

import static io.sluice.client.UrlParts.query;
import static io.sluice.client.UrlParts.segment;

import io.sluice.client.model.BindingChange;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import java.util.List;

/**
 * Changing which budgets jobs draw on (BUDGETS.md §8.7), for one job or for every job a query
 * matches. Only scheduled or ready jobs can change; single-job routes return the job without
 * payload.
 */
public final class BindingsApi {
  private final HttpTransport transport;

  BindingsApi(HttpTransport transport) {
    this.transport = transport;
  }

  /** Replaces the job's whole set of bindings; an empty list unbinds everything. */
  public Job set(String jobId, List<BudgetBinding> bindings) {
    return transport.call("PUT", jobPath(jobId), new WireBodies.Bindings(bindings), Job.class);
  }

  public Job clear(String jobId) {
    return transport.call("DELETE", jobPath(jobId), null, Job.class);
  }

  /** Adds a binding; {@link ConflictException} if the job is already bound to that key. */
  public Job add(String jobId, BudgetBinding binding) {
    return transport.call("POST", jobPath(jobId, binding.key()), binding, Job.class);
  }

  /** Binds, or replaces the existing binding to the same key whole. */
  public Job put(String jobId, BudgetBinding binding) {
    return transport.call("PUT", jobPath(jobId, binding.key()), binding, Job.class);
  }

  /** {@link NotFoundException} if the job is not bound to {@code key}. */
  public Job changeCost(String jobId, String key, long cost) {
    return transport.call("PATCH", jobPath(jobId, key), new WireBodies.Cost(cost), Job.class);
  }

  public Job remove(String jobId, String key) {
    return transport.call("DELETE", jobPath(jobId, key), null, Job.class);
  }

  /** Binds every matching job that is not bound to the key yet. */
  public BindingChange addAll(JobQuery query, BudgetBinding binding) {
    return bulk("POST", binding.key(), query, binding);
  }

  public BindingChange putAll(JobQuery query, BudgetBinding binding) {
    return bulk("PUT", binding.key(), query, binding);
  }

  public BindingChange changeCostAll(JobQuery query, String key, long cost) {
    return bulk("PATCH", key, query, new WireBodies.Cost(cost));
  }

  public BindingChange removeAll(JobQuery query, String key) {
    return bulk("DELETE", key, query, null);
  }

  /** Unbinds every budget from every matching job. */
  public BindingChange clearAll(JobQuery query) {
    return transport.call("DELETE", "/jobs/budgets" + query(query.filterParameters()), null,
        BindingChange.class);
  }

  private BindingChange bulk(String method, String key, JobQuery query, Object body) {
    return transport.call(method,
        "/jobs/budgets/" + segment(key) + query(query.filterParameters()), body,
        BindingChange.class);
  }

  private static String jobPath(String jobId) {
    return "/jobs/" + segment(jobId) + "/budgets";
  }

  private static String jobPath(String jobId, String key) {
    return jobPath(jobId) + "/" + segment(key);
  }
}
