package io.sluice.bench.torture;

import io.sluice.bench.Await;
import io.sluice.bench.ClientKit;
import io.sluice.bench.Endpoint;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientAgent;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The load against one server process: producer lanes (even lanes single enqueues, odd lanes
 * bulk) and workers (even workers ack one by one, odd workers in bulk), all with connections of
 * their own. Started and stopped by the main thread; {@link #stop()} returns only once every
 * request has its outcome in the ledger and every connection is closed, so nothing of this
 * generation reaches the next server.
 */
final class Generation {

  private static final long OPEN_TIMEOUT_SEC = 30;
  private static final long IDLE_TIMEOUT_MS = 60_000;
  private static final int ACK_CONNECTIONS = 4;

  private final int gen;
  private final Requests requests = new Requests();
  private final HttpClientAgent connector;
  private final List<HttpClientAgent> clients = new ArrayList<>();
  private final List<ProducerLane> lanes = new ArrayList<>();
  private final List<Worker> workers = new ArrayList<>();
  private final Endpoint endpoint;
  private final int prefetch;

  Generation(ClientKit kit, Endpoint endpoint, int gen, Ledger ledger, TortureOptions opt, int producers,
      String nonce, InstantSource clock) {
    this.gen = gen;
    this.endpoint = endpoint;
    this.prefetch = opt.prefetch();
    this.connector = kit.connector();
    clients.add(connector);
    int context = 0;
    if (producers > 0) {
      HttpClientAgent enqueues = kit.pooledClient(endpoint, producers);
      clients.add(enqueues);
      for (int i = 0; i < producers; i++) {
        int maxBulk = i % 2 == 0 ? 1 : opt.maxBulk();
        lanes.add(new ProducerLane(kit.context(context++), enqueues, ledger, requests, gen, nonce, maxBulk,
            opt.maxBacklog()));
      }
    }
    for (int i = 0; i < opt.workers(); i++) {
      HttpClientAgent acks = kit.pooledClient(endpoint, ACK_CONNECTIONS);
      clients.add(acks);
      workers.add(new Worker(kit.context(context++), acks, ledger, requests, gen, nonce, i % 2 == 1,
          opt.holdMs(), opt.failPercent(), clock));
    }
  }

  /** Opens every take stream, then starts the producers. */
  void start() {
    List<Future<Void>> opened = new ArrayList<>();
    for (Worker w : workers) {
      opened.add(w.open(connector, endpoint, prefetch));
    }
    Await.result(Future.all(opened), OPEN_TIMEOUT_SEC, TimeUnit.SECONDS,
        "opening the take streams of generation " + gen);
    lanes.forEach(ProducerLane::start);
  }

  /** Fails with the first take stream that ends or breaks; never succeeds. */
  Future<Void> anyStreamBroken() {
    Promise<Void> broken = Promise.promise();
    for (Worker w : workers) {
      w.broken().onFailure(broken::tryFail);
    }
    return broken.future();
  }

  /** Sends nothing more, waits for every answer (or failure), then closes every connection. */
  void stop() {
    requests.stop();
    requests.awaitIdle(IDLE_TIMEOUT_MS, "stopping generation " + gen);
    List<Future<?>> closing = new ArrayList<>();
    for (Worker w : workers) {
      closing.add(w.close());
    }
    for (HttpClientAgent c : clients) {
      closing.add(c.close());
    }
    Await.quietly(Future.join(closing), 10_000);
  }
}
