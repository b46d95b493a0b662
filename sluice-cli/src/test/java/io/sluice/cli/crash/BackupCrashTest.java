package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups that do not finish (CLI.md §9): a client that stops reading holds the server's
 * stream back (backpressure) with its checkpoint on disk; a client that goes away gets its
 * checkpoint deleted; a server killed mid-backup keeps its own data, and the next start deletes
 * the checkpoint the crash left behind.
 */
class BackupCrashTest {
  private static final String QUEUE = "big";
  /** About 15 MB of hard-to-compress payloads: far more than the socket buffers hold. */
  private static final int JOBS = 10_000;
  private static final int PAYLOAD_BYTES = 1_500;
  private static final long WAIT_MILLIS = 10_000;

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void anUnfinishedBackupLeavesNoCheckpointAndTheDataIntact() throws Exception {
    Path root = tmp.resolve("root");
    SluiceProcess server = servers.start(root, tmp);
    Random random = new Random(42);
    List<String> ids = JobCalls.enqueue(server, JOBS, 500, n -> {
      byte[] noise = new byte[PAYLOAD_BYTES * 3 / 4];
      random.nextBytes(noise);
      return JobCalls.job(QUEUE, "\"" + Base64.getEncoder().encodeToString(noise) + "\"");
    });

    // A client that reads only the headers: the stream stalls with its checkpoint on disk.
    try (Socket stalled = requestBackup(server)) {
      assertThat(awaitCheckpoints(root, 1)).as("checkpoint of the stalled backup").isTrue();
      Thread.sleep(300);
      assertThat(checkpoints(root)).as("still streaming, held back by the client").hasSize(1);
    }
    assertThat(awaitCheckpoints(root, 0)).as("checkpoint deleted once the client left; "
        + "server output:\n%s", server.output()).isTrue();
    assertThat(server.output()).contains("backup aborted");

    // A server killed while it streams a backup.
    try (Socket interrupted = requestBackup(server)) {
      assertThat(awaitCheckpoints(root, 1)).isTrue();
      assertThat(server.sigkill()).isEqualTo(CrashServers.SIGKILL_STATUS);
    }
    assertThat(checkpoints(root)).as("left behind by the crash").hasSize(1);

    SluiceProcess restarted = servers.start(root, tmp);
    assertThat(checkpoints(root)).as("deleted at start-up").isEmpty();
    assertThat(JobCalls.statusById(restarted).keySet()).containsExactlyInAnyOrderElementsOf(ids);
  }

  /**
   * Sends POST /backup on a raw connection with a small receive buffer and reads the response
   * headers only; asserts a 200.
   */
  private static Socket requestBackup(SluiceProcess server) throws IOException {
    String adminUrl = server.adminUrl();
    int port = Integer.parseInt(adminUrl.substring(adminUrl.lastIndexOf(':') + 1));
    Socket socket = new Socket();
    socket.setReceiveBufferSize(64 * 1024);
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    socket.setSoTimeout(10_000);
    socket.getOutputStream().write(("POST /backup HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed in the headers: " + head);
      }
      head.write(b);
    }
    assertThat(head.toString(StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
    return socket;
  }

  private static boolean awaitCheckpoints(Path root, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
    while (checkpoints(root).size() != count) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(20);
    }
    return true;
  }

  private static List<Path> checkpoints(Path root) throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      return entries.filter(path -> path.getFileName().toString().startsWith("backup-tmp-"))
          .toList();
    }
  }
}
