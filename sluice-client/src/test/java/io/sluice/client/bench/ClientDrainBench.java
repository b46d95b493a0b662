package io.sluice.client.bench;

import io.sluice.client.SluiceClient;
import io.sluice.client.Worker;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Client-side throughput against a running server: bulk-enqueues jobs with ~100-byte payloads
 * (batches of 1,000, 4 requests in flight), then drains them with 4 workers (prefetch 16, batched
 * acks), timed from the first job handled until no job of the round is left unfinished. Like
 * {@code sluice-bench --server-warmup-runs}, full rounds run first, unmeasured, so both compare
 * warm JVMs: the worker's code takes about three rounds of 100,000 jobs to compile, and one
 * round of 20,000 measured it at half its warm rate. Arguments: server URL (default
 * http://127.0.0.1:7890), job count (default 100000), measured rounds (default 1), warm-up
 * rounds (default 3).
 */
public final class ClientDrainBench {
  private static final int BATCH = 1_000;
  private static final int ENQUEUERS = 4;
  private static final int WORKERS = 4;
  private static final int PREFETCH = 16;
  private static final int CONCURRENCY = Integer.getInteger("concurrency", PREFETCH);

  private ClientDrainBench() {}

  public static void main(String[] args) throws Exception {
    String url = args.length > 0 ? args[0] : "http://127.0.0.1:7890";
    int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    int warmUpRounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    SluiceClient client = SluiceClient.builder(url)
        .httpVersion(java.net.http.HttpClient.Version.valueOf(System.getProperty("http", "HTTP_1_1")))
        .build();
    for (int i = 1; i <= warmUpRounds; i++) {
      round(client, jobs, "warm-up " + i + "/" + warmUpRounds + " (not measured) ");
    }
    for (int i = 1; i <= rounds; i++) {
      round(client, jobs, "round " + i + "/" + rounds + " ");
    }
  }

  private static void round(SluiceClient client, int jobs, String label) throws Exception {
    String queue = "client-bench-" + System.nanoTime();
    long enqueueNanos = enqueue(client, queue, jobs);
    System.out.printf(label + "enqueue: %d jobs in %.2f s = %.0f jobs/s%n",
        jobs, enqueueNanos / 1e9, jobs / (enqueueNanos / 1e9));

    long cpuBefore = processCpuNanos();
    long drainNanos = drain(client, queue, jobs);
    double cpuPercent = 100.0 * (processCpuNanos() - cpuBefore) / drainNanos;
    System.out.printf(label + "drain:   %d jobs in %.2f s = %.0f jobs/s (%d workers, prefetch %d;"
            + " bench CPU %.0f%% of a core)%n",
        jobs, drainNanos / 1e9, jobs / (drainNanos / 1e9), WORKERS, PREFETCH, cpuPercent);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long enqueue(SluiceClient client, String queue, int jobs) throws Exception {
    // 80 characters of text plus the JSON around it: about 100 bytes per payload.
    String text = "x".repeat(80);
    ExecutorService senders = Executors.newFixedThreadPool(ENQUEUERS);
    try {
      long start = System.nanoTime();
      List<Future<?>> batches = new ArrayList<>();
      for (int first = 0; first < jobs; first += BATCH) {
        int from = first;
        int to = Math.min(jobs, first + BATCH);
        batches.add(senders.submit(() -> {
          List<EnqueueRequest> batch = new ArrayList<>(to - from);
          for (int i = from; i < to; i++) {
            batch.add(EnqueueRequest.builder(queue, "bench", Map.of("i", i, "text", text))
                .build());
          }
          client.jobs().enqueueAll(batch);
        }));
      }
      for (Future<?> batch : batches) {
        batch.get();
      }
      return System.nanoTime() - start;
    } finally {
      senders.shutdown();
    }
  }

  private static long drain(SluiceClient client, String queue, int jobs)
      throws InterruptedException {
    AtomicLong handled = new AtomicLong();
    AtomicLong firstHandledNanos = new AtomicLong();
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      Worker worker = Worker.builder(client).queues(queue).concurrency(CONCURRENCY)
          .prefetch(PREFETCH).build();
      worker.handle("bench", Map.class, (payload, job) -> {
        if (handled.incrementAndGet() == 1) {
          firstHandledNanos.set(System.nanoTime());
        }
      });
      worker.start();
      workers.add(worker);
    }
    while (handled.get() < jobs) {
      Thread.sleep(1);
    }
    // Done when the last acks have landed, not merely when the handlers ran. Only unfinished
    // jobs are counted: the server counts those from its index alone, while counting finished
    // ones reads each record (for its purge time), which would add to the measured time.
    JobQuery remaining = JobQuery.all().queues(queue)
        .statuses(JobStatus.SCHEDULED, JobStatus.READY, JobStatus.IN_FLIGHT);
    while (client.jobs().count(remaining) > 0) {
      Thread.sleep(1);
    }
    // From the first job handled, as sluice-bench times its drain from streams already open:
    // starting threads and connecting is not draining.
    long start = firstHandledNanos.get();
    long elapsed = System.nanoTime() - start;
    for (Worker worker : workers) {
      worker.shutdown(Duration.ofSeconds(10));
    }
    return elapsed;
  }
}
