package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.CliRunner;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice backup}, {@code restore} and {@code compact} run in this JVM against a real
 * server (CLI.md §10.1–§10.3).
 */
class BackupCommandTest {
  private static final Pattern LOG_LINE = Pattern.compile("(?m)^\\d{4}-\\d\\d-\\d\\dT.*\n");

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  @TempDir Path tmp;

  private String adminUrl() {
    return "http://127.0.0.1:" + server.adminPort();
  }

  @Test
  void aBackupRestoredIntoANewRootServesTheSameJobs() throws Exception {
    String queue = uniqueName("round-trip");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ids.add(server.enqueueId(queue));
    }
    Path archive = tmp.resolve("backup.tar.gz");

    CliRunner.Result backup = CliRunner.sluice("backup", "--url", adminUrl(), archive.toString());

    assertThat(backup.exitCode()).as(backup.toString()).isZero();
    assertThat(printed(backup)).matches("Requesting backup from " + adminUrl() + "\\.\\.\\.\n"
        + "Backup saved to " + archive + " \\(\\d+\\.\\d KiB\\)\n");
    assertThat(filesIn(tmp)).as("the archive and nothing else").containsExactly(archive);

    Path root = tmp.resolve("restored");
    CliRunner.Result restore = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());
    assertThat(restore.exitCode()).as(restore.toString()).isZero();

    try (ServerFixture restored = ServerFixture.start(root)) {
      for (String id : ids) {
        assertThat(restored.getJob(id).get("queue").textValue()).isEqualTo(queue);
      }
    }
  }

  @Test
  void anErrorAnswerIsPrintedAndLeavesTheFileAsItWas() throws Exception {
    Path archive = Files.writeString(tmp.resolve("backup.tar.gz"), "an older backup");
    String primaryUrl = "http://127.0.0.1:" + server.port(); // has no /backup

    CliRunner.Result result = CliRunner.sluice("backup", "--url", primaryUrl, archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: {\"error\":\"not found\"} (HTTP 404)\n");
    assertThat(archive).hasContent("an older backup");
    assertThat(filesIn(tmp)).containsExactly(archive);
  }

  @Test
  void anUnreachableServerIsAnErrorNamingTheUrl() throws Exception {
    String url = "http://127.0.0.1:" + closedPort();

    CliRunner.Result backup = CliRunner.sluice("backup", "--url", url, tmp.resolve("b.tar.gz").toString());
    CliRunner.Result compact = CliRunner.sluice("compact", "--url", url);

    for (CliRunner.Result result : List.of(backup, compact)) {
      assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
      assertThat(result.err()).isEqualTo("Error: cannot reach " + url
          + ": connection refused\n");
    }
    assertThat(filesIn(tmp)).isEmpty();
  }

  @Test
  void anInvalidUrlIsAnError() {
    CliRunner.Result result = CliRunner.sluice("compact", "--url", "ftp://127.0.0.1:1");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).startsWith("Error: invalid value for --url: 'ftp://127.0.0.1:1'");
  }

  @Test
  void compactWaitsForTheCompactionAndFailsOnAnyOtherAnswer() {
    CliRunner.Result done = CliRunner.sluice("compact", "--url", adminUrl());
    assertThat(done.exitCode()).as(done.toString()).isZero();
    assertThat(printed(done)).isEqualTo("Requesting compaction from " + adminUrl() + "...\n"
        + "Compaction complete.\n");

    CliRunner.Result refused = CliRunner.sluice("compact", "--url", "http://127.0.0.1:" + server.port());
    assertThat(refused.exitCode()).isEqualTo(1);
    assertThat(refused.err()).isEqualTo("Error: {\"error\":\"not found\"} (HTTP 404)\n");
  }

  /** Stdout without the log lines of the server, which runs in this JVM and logs to it. */
  private static String printed(CliRunner.Result result) {
    return LOG_LINE.matcher(result.out()).replaceAll("");
  }

  private static List<Path> filesIn(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.sorted().toList();
    }
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
