package io.sluice.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import io.sluice.client.model.Budget;
import io.sluice.client.model.BudgetBinding;
import io.sluice.client.model.BudgetPartition;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.Page;
import io.sluice.client.model.Settlement;
import java.util.Collection;
import java.util.List;

/** Envelopes around the model types, as the endpoints send and expect them. */
final class WireBodies {
  private WireBodies() {}

  record Pages(
      @JsonProperty("self") String self,
      @JsonProperty("next") String next,
      @JsonProperty("prev") String prev) {}

  record JobPage(@JsonProperty("jobs") List<Job> jobs, @JsonProperty("pages") Pages pages) {
    Page<Job> toPage() {
      return new Page<>(List.copyOf(jobs), pages.self(), pages.next(), pages.prev());
    }
  }

  record ErrorPage(
      @JsonProperty("errors") List<ErrorRecord> errors,
      @JsonProperty("pages") Pages pages) {
    Page<ErrorRecord> toPage() {
      return new Page<>(List.copyOf(errors), pages.self(), pages.next(), pages.prev());
    }
  }

  record PartitionPage(
      @JsonProperty("partitions") List<BudgetPartition> partitions,
      @JsonProperty("pages") Pages pages) {
    Page<BudgetPartition> toPage() {
      return new Page<>(List.copyOf(partitions), pages.self(), pages.next(), pages.prev());
    }
  }

  record BulkEnqueue(@JsonProperty("jobs") List<EnqueueRequest> jobs) {}

  record JobList(@JsonProperty("jobs") List<Job> jobs) {}

  record Ids(@JsonProperty("ids") Collection<String> ids) {}

  /** A success or failure body settling what the job really cost (X5). */
  record Settling(@JsonProperty("budgets") List<Settlement> budgets) {}

  /** A failure report with the settlements beside its own fields (X5). */
  record SettlingFailure(@JsonUnwrapped FailureReport report,
      @JsonProperty("budgets") List<Settlement> budgets) {}

  /** A bulk success settling some of the jobs it acknowledges (X5). */
  record SettlingIds(@JsonProperty("ids") Collection<String> ids,
      @JsonProperty("settlements") List<JobSettlement> settlements) {}

  record JobSettlement(@JsonProperty("id") String id,
      @JsonProperty("budgets") List<Settlement> budgets) {}

  record NotFound(@JsonProperty("not_found") List<String> notFound) {}

  record Count(@JsonProperty("count") long count) {}

  record Patched(@JsonProperty("patched") long patched) {}

  record Deleted(@JsonProperty("deleted") long deleted) {}

  record Queues(@JsonProperty("queues") List<String> queues) {}

  record Budgets(@JsonProperty("budgets") List<Budget> budgets) {}

  record Bindings(@JsonProperty("budgets") List<BudgetBinding> budgets) {}

  record Cost(@JsonProperty("cost") long cost) {}

  record Paused(@JsonProperty("paused") boolean paused) {}

  record CronNames(@JsonProperty("crons") List<String> crons) {}

  record Health(@JsonProperty("status") String status) {}

  record Version(@JsonProperty("version") String version) {}
}
