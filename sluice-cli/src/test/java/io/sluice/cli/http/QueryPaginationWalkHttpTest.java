package io.sluice.cli.http;

import static io.sluice.cli.http.QueryClient.count;
import static io.sluice.cli.http.QueryClient.follow;
import static io.sluice.cli.http.QueryClient.ids;
import static io.sluice.cli.http.QueryClient.list;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cursor walk of {@code GET /jobs} over 10,000 jobs while other clients enqueue, delete, take
 * and acknowledge (API.md §7.3): no job is listed twice, and every job that existed for the whole
 * walk is listed exactly once.
 */
class QueryPaginationWalkHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final int INITIAL = 10_000;
  static final int PER_BULK = 1_000;
  static final int PAGE = 500;

  /** Enqueues {@code n} jobs on {@code queue} in one bulk request; returns their ids in order. */
  static List<String> bulk(String queue, int n, int first) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode jobs = body.putArray("jobs");
    for (int i = 0; i < n; i++) {
      ObjectNode request = job(queue, "walk");
      request.putObject("payload").put("n", first + i);
      jobs.add(request);
    }
    Reply reply = server.postJson("/jobs/bulk", body);
    assertThat(reply.status()).as("bulk enqueue on %s", queue).isEqualTo(201);
    List<String> ids = new ArrayList<>(n);
    for (JsonNode created : reply.json().get("jobs")) {
      ids.add(id(created));
    }
    return ids;
  }

  @Test
  @Timeout(value = 50, unit = TimeUnit.SECONDS)
  void walkUnderConcurrentWritesSeesStableJobsExactlyOnce() throws Exception {
    String queue = uniqueName("walk");
    String other = uniqueName("walk-other");
    List<String> initial = new ArrayList<>(INITIAL);
    for (int b = 0; b < INITIAL / PER_BULK; b++) {
      initial.addAll(bulk(queue, PER_BULK, b * PER_BULK));
    }
    bulk(other, 2_000, 0);
    assertThat(count(server, "queue=" + queue)).isEqualTo(INITIAL);
    String lastInitial = initial.get(INITIAL - 1);

    Set<String> added = ConcurrentHashMap.newKeySet();
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    AtomicInteger acked = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    // One latch per client: the walk starts once every client has done something.
    List<CountDownLatch> started = List.of(new CountDownLatch(1), new CountDownLatch(1),
        new CountDownLatch(1), new CountDownLatch(1));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<Future<?>> tasks = new ArrayList<>();
    for (int p = 0; p < 2; p++) {
      int producer = p;
      tasks.add(pool.submit(() -> {
        int round = 0;
        while (!stop.get() && round < 400) {
          added.addAll(bulk(queue, 50, 1_000_000 * (producer + 1) + 50 * round));
          round++;
          started.get(producer).countDown();
        }
        return null;
      }));
    }
    tasks.add(pool.submit(() -> {
      // Deletes initial jobs scattered over the whole id range, from the far end backwards, so
      // some go before the walk reaches them and some after.
      for (int i = INITIAL - 7; i >= 0 && !stop.get(); i -= 97) {
        String victim = initial.get(i);
        Reply reply = server.delete("/jobs/" + victim);
        assertThat(reply.status()).as("DELETE %s", victim).isEqualTo(204);
        deleted.add(victim);
        started.get(2).countDown();
        Thread.sleep(5);
      }
      return null;
    }));
    tasks.add(pool.submit(() -> {
      try (WorkerStream worker = server.take("queue=" + other + "&prefetch=8")) {
        while (!stop.get()) {
          WorkerStream.Frame frame = worker.nextFrame(Duration.ofMillis(200));
          if (frame instanceof WorkerStream.Job taken) {
            String takenId = id(taken.body());
            assertThat(taken.body().get("queue").textValue()).isEqualTo(other);
            server.ack(takenId);
            acked.incrementAndGet();
            started.get(3).countDown();
          } else if (frame instanceof WorkerStream.End end) {
            throw new AssertionError("worker stream ended: " + end.reason());
          }
        }
      }
      return null;
    }));

    List<String> seen = new ArrayList<>();
    int pages = 0;
    try {
      for (CountDownLatch latch : started) {
        assertThat(latch.await(10, TimeUnit.SECONDS)).as("concurrent clients started").isTrue();
      }
      JsonNode page = list(server, "queue=" + queue + "&limit=" + PAGE);
      while (true) {
        pages++;
        List<String> pageIds = ids(page);
        assertThat(pageIds.size()).isLessThanOrEqualTo(PAGE);
        seen.addAll(pageIds);
        if (!pageIds.isEmpty() && pageIds.get(pageIds.size() - 1).compareTo(lastInitial) >= 0) {
          stop.set(true); // past every initial job: let the walk reach the end
        }
        JsonNode next = page.get("pages").get("next");
        if (next.isNull()) {
          break;
        }
        assertThat(pages).as("pages walked").isLessThan(200);
        page = follow(server, next.textValue());
      }
    } finally {
      stop.set(true);
      pool.shutdown();
      assertThat(pool.awaitTermination(15, TimeUnit.SECONDS)).as("clients stopped").isTrue();
    }
    for (Future<?> task : tasks) {
      task.get(1, TimeUnit.SECONDS); // rethrows a client's failure
    }

    System.out.printf("walk: %d pages, %d listed, %d added, %d deleted, %d acked elsewhere%n",
        pages, seen.size(), added.size(), deleted.size(), acked.get());
    assertThat(acked.get()).as("jobs acknowledged during the walk").isPositive();
    assertThat(added).as("jobs added during the walk").isNotEmpty();
    assertThat(deleted).as("jobs deleted during the walk").isNotEmpty();
    assertThat(seen).as("no job listed twice").doesNotHaveDuplicates();
    List<String> sorted = new ArrayList<>(seen);
    sorted.sort(null);
    assertThat(seen).as("ascending id order").isEqualTo(sorted);
    Set<String> known = new HashSet<>(initial);
    known.addAll(added);
    assertThat(known).as("only jobs of the walked queue").containsAll(seen);
    Set<String> stable = new HashSet<>(initial);
    stable.removeAll(deleted);
    Set<String> missing = new HashSet<>(stable);
    missing.removeAll(seen);
    assertThat(missing).as("jobs present for the whole walk but not listed").isEmpty();
    assertThat(count(server, "queue=" + queue))
        .isEqualTo(INITIAL - deleted.size() + added.size());
  }
}
