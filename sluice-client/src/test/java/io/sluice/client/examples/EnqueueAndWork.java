package io.sluice.client.examples;

import io.sluice.client.SluiceClient;
import io.sluice.client.Worker;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.JobQuery;
import java.time.Duration;

/**
 * Enqueues a few jobs and processes them with a worker. Run against a server:
 * {@code mvn -q -pl sluice-client exec:java -Dexec.mainClass=io.sluice.client.examples.EnqueueAndWork
 * -Dexec.args=http://127.0.0.1:7890}.
 */
public final class EnqueueAndWork {
  record Email(String to, String subject) {}

  private EnqueueAndWork() {}

  public static void main(String[] args) throws InterruptedException {
    String url = args.length > 0 ? args[0] : "http://127.0.0.1:7890";
    SluiceClient client = SluiceClient.builder(url).build();

    for (int i = 0; i < 5; i++) {
      client.jobs().enqueue(EnqueueRequest.builder("emails", "send_email",
          new Email("user" + i + "@example.com", "Welcome")).priority(10).build());
    }

    Worker worker = Worker.builder(client).queues("emails").concurrency(4).build();
    worker.handle("send_email", Email.class, (email, job) ->
        System.out.printf("job %s: sending '%s' to %s%n", job.id(), email.subject(), email.to()));
    worker.start();

    JobQuery emails = JobQuery.all().queues("emails");
    while (client.jobs().count(emails) > 0) {
      Thread.sleep(50);
    }
    worker.shutdown(Duration.ofSeconds(10));
  }
}
