package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.JobQuery;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /reset} gets a server of its own: it wipes everything. */
class ResetTest {
  @TempDir Path dir;

  @Test
  void resetDeletesJobsAndBudgets() {
    try (TestServer server = TestServer.start(dir)) {
      SluiceClient client = server.client();
      client.budgets().put("b", BudgetPolicy.concurrency(1));
      client.jobs().enqueue(EnqueueRequest.builder("q", "t", null).build());

      client.reset();

      assertThat(client.jobs().count(JobQuery.all())).isZero();
      assertThat(client.budgets().list()).isEmpty();
      assertThat(client.queues()).isEmpty();
    }
  }
}
