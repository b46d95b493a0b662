package io.sluice.client;

import io.sluice.api.ApiConfig;
import io.sluice.api.TlsSettings;
import io.sluice.cli.SluiceServer;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.store.rocks.StoreConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real Sluice server in this JVM over a test's temporary directory. It first listens on a port
 * the system picks, then keeps that port, so that a restart comes back where clients expect it.
 * Heartbeats every 200 ms keep stream tests fast.
 */
final class TestServer implements AutoCloseable {
  static final long HEARTBEAT_MS = 200;
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final Path dataDir;
  private final TlsSettings tls;
  private SluiceServer server;
  private int port;

  private TestServer(Path dataDir, TlsSettings tls) {
    this.dataDir = dataDir;
    this.tls = tls;
    // Port 0 at first: a port found free and then bound later can be taken in between by any
    // client socket's ephemeral port, which made a test fail now and then.
    this.server = boot();
    this.port = server.port();
  }

  static TestServer start(Path tempDir) {
    return start(tempDir, null);
  }

  /** A server whose primary listener serves HTTPS with {@code tls} (null: plain HTTP). */
  static TestServer start(Path tempDir, TlsSettings tls) {
    return new TestServer(tempDir.resolve("data"), tls);
  }

  private SluiceServer boot() {
    return SluiceServer.start(
        new StoreConfig(dataDir, 64L << 20),
        EngineConfig.defaults(),
        new ApiConfig("127.0.0.1", port, true, "127.0.0.1", 0, HEARTBEAT_MS, 2, tls, null),
        new EngineLoop.CommitModes(false, false),
        Clock.systemUTC());
  }

  String url() {
    return (tls == null ? "http" : "https") + "://127.0.0.1:" + port;
  }

  int port() {
    return port;
  }

  SluiceClient client() {
    return SluiceClient.builder(url()).build();
  }

  /** Stops the server; in-flight jobs return to ready as in any graceful shutdown. */
  void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** A new server over the same data directory and port. */
  void startAgain() {
    server = boot();
  }

  /** A queue name no other test uses, so each test starts from an empty queue. */
  static String uniqueName(String prefix) {
    return prefix + "-" + NAMES.incrementAndGet();
  }

  @Override
  public void close() {
    stop();
  }
}
