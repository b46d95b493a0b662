package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request size limit against a real {@code sluice serve} with its default limits: a body
 * declared far above the limit is answered at once and none of it is kept, whatever the client
 * sends after; and the limit's flag is read from the environment too.
 */
class RequestLimitProcessTest {
  private static final long GIB = 1L << 30;
  /** What the client pushes after its head anyway. */
  private static final int SENT_ANYWAY = 200 << 20;

  @TempDir Path dir;

  @Test
  void aGigabyteBodyIsRefusedWithinASecondAndNeverBuffered() throws Exception {
    SluiceProcess server = SluiceProcess.start(dir.resolve("root"), dir.resolve("server.log"),
        Duration.ofSeconds(60));
    try {
      // Once, so that what loading the classes of this path costs is not counted below.
      refuseGigabyte(server.port(), 0);
      long rssBeforeKb = rssKb(server.pid());

      Answer answer = refuseGigabyte(server.port(), SENT_ANYWAY);

      assertThat(answer.text()).startsWith("HTTP/1.1 413 ");
      assertThat(answer.text())
          .endsWith("{\"error\":\"request body exceeds the limit of 268435456 bytes\"}");
      assertThat(answer.after()).isLessThan(Duration.ofSeconds(1));
      // Far below the 200 MiB pushed: a JVM's RSS moves by a few MiB on its own (JIT, pools).
      assertThat(rssKb(server.pid()) - rssBeforeKb).as("RSS growth in kB")
          .isLessThan(48 * 1024);
      assertThat(server.get("/health").statusCode()).isEqualTo(200);
    } finally {
      server.forceStop();
    }
  }

  /** What the server sent before ending its side, and how long after the request head. */
  private record Answer(String text, Duration after) {}

  /**
   * Sends the head of a 1 GiB enqueue, reads the whole answer (before sending any body byte),
   * then pushes {@code thenSend} body bytes until the server closes.
   */
  private static Answer refuseGigabyte(int port, int thenSend) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      long sentAt = System.nanoTime();
      out.write(("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + GIB + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Answer answer = new Answer(readUntilClosed(socket.getInputStream()),
          Duration.ofNanos(System.nanoTime() - sentAt));
      byte[] block = new byte[1 << 20];
      try {
        for (int sent = 0; sent < thenSend; sent += block.length) {
          out.write(block);
        }
      } catch (IOException e) {
        // The server stopped reading and closed: nothing more to push.
      }
      return answer;
    }
  }

  /** Everything the server sends before ending its side of the connection. */
  private static String readUntilClosed(InputStream in) throws IOException {
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    in.transferTo(answer);
    return answer.toString(StandardCharsets.UTF_8);
  }

  private static long rssKb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new AssertionError("no VmRSS for process " + pid);
  }

  @Test
  void theLimitIsReadFromTheEnvironmentAndCheckedAtStartUp() throws Exception {
    SluiceProcess server = SluiceProcess.launch(dir.resolve("root"), dir.resolve("server.log"),
        List.of(), List.of("--warm-up-jobs", "0"), Map.of("SLUICE_MAX_BODY_SIZE", "1MiB"));
    try {
      assertThat(server.awaitExit(Duration.ofSeconds(60))).as(server.output()).isEqualTo(1);
      assertThat(server.output()).contains("Error: invalid value for --max-body-size: '1MiB'");
    } finally {
      server.forceStop();
    }
  }
}
