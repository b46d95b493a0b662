package io.sluice.client;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class whose tests share one real server, started before the first and stopped after the
 * last, and a client of it. Tests keep apart by their own queue and budget names
 * ({@link TestServer#uniqueName}).
 */
abstract class SharedServerTest {
  @TempDir static Path dir;
  static TestServer server;
  static SluiceClient client;

  @BeforeAll
  static void startServer() {
    server = TestServer.start(dir);
    client = server.client();
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }
}
