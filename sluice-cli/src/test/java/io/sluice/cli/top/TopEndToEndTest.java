package io.sluice.cli.top;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.cli.crash.SluiceProcess;
import io.sluice.cli.tls.TlsFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice top} end to end: a real server process, {@code top} in another process under a
 * pseudo-terminal (tmux), keys typed and the screen read back. CI installs tmux (.ci/run);
 * elsewhere the test is skipped when tmux is missing.
 */
class TopEndToEndTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int COLUMNS = 120;
  private static final int ROWS = 24;

  @TempDir Path tempDir;

  @Test
  void switchesTabsSearchesAndDeletesAfterConfirmation() throws Exception {
    assumeTrue(System.getenv("CI") != null || TmuxPane.available(),
        "tmux is not installed (CI installs it)");
    SluiceProcess server = SluiceProcess.start(tempDir.resolve("root"),
        tempDir.resolve("server.log"), WAIT);
    try (TmuxPane pane = TmuxPane.start(topScript(plainUrl(server)), COLUMNS, ROWS)) {
      List<String> mail = enqueue(server, "mail-eu", "email.send", 5);
      List<String> pdf = enqueue(server, "render", "pdf.render", 3);
      post(server, "/budgets/partner-api",
          "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":60000}}");

      pane.await(s -> s.contains("In-Flight (0)") && s.contains("Ready (8)"), "the counts", WAIT);

      pane.keys("Tab");
      String ready = pane.await(s -> s.contains("row 1 of 8") && s.contains(pdf.get(2)),
          "the Ready tab", WAIT);
      for (String id : mail) {
        assertThat(ready).contains(id);
      }

      pane.type("/");
      pane.type("pdf");
      pane.keys("Tab");
      pane.type("rend");
      pane.keys("Enter");
      String searched = pane.await(s -> s.contains("row 6 of 8") && s.contains("matches 3"),
          "the first match selected", WAIT);
      assertThat(searched.lines().filter(line -> line.startsWith("* "))).hasSize(3)
          .allMatch(line -> line.contains("pdf.render"));
      Files.writeString(Path.of("target", "top-screen.txt"), searched, StandardCharsets.UTF_8);

      pane.keys("n");
      pane.await(s -> s.contains("row 7 of 8"), "the next match", WAIT);
      pane.keys("N");
      pane.await(s -> s.contains("row 6 of 8"), "the previous match", WAIT);

      pane.keys("D");
      pane.await(s -> s.contains("Delete job " + pdf.get(0) + " (pdf.render in render)? [y/N]"),
          "the delete confirmation", WAIT);
      pane.keys("n");
      pane.await(s -> s.contains("delete cancelled"), "the cancelled delete", WAIT);
      assertThat(server.get("/jobs/" + pdf.get(0)).statusCode()).isEqualTo(200);
      pane.keys("D");
      pane.await(s -> s.contains("[y/N]"), "the delete confirmation again", WAIT);
      pane.keys("y");
      pane.await(s -> s.contains("deleted " + pdf.get(0)) && s.contains("Ready (7)")
          && !s.contains(pdf.get(0) + "  render"), "the job gone", WAIT);
      assertThat(server.get("/jobs/" + pdf.get(0)).statusCode()).isEqualTo(404);

      pane.keys("Tab", "Tab");
      pane.await(s -> s.contains("partner-api") && s.contains("[####################]")
          && s.contains("10/10"), "the Budgets tab", WAIT);

      pane.keys("q");
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (pane.running() && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(pane.running()).as("top still running after q").isFalse();
    } finally {
      server.forceStop();
    }
  }

  @Test
  void reconnectsWhenTheServerComesBackOnTheSameAddress() throws Exception {
    assumeTrue(System.getenv("CI") != null || TmuxPane.available(),
        "tmux is not installed (CI installs it)");
    Path root = tempDir.resolve("root");
    SluiceProcess server = SluiceProcess.start(root, tempDir.resolve("server.log"), WAIT);
    SluiceProcess restarted = null;
    try (TmuxPane pane = TmuxPane.start(topScript(plainUrl(server)), COLUMNS, ROWS)) {
      enqueue(server, "mail-eu", "email.send", 2);
      pane.await(s -> s.contains("Ready (2)"), "the counts", WAIT);

      server.forceStop();
      pane.await(s -> s.contains("NOT CONNECTED") && s.contains("reconnecting"),
          "the lost connection", WAIT);
      restarted = server.restart(root, tempDir.resolve("server-2.log"), WAIT);
      enqueue(restarted, "mail-eu", "email.send", 1);

      String back = pane.await(s -> s.contains("Ready (3)") && !s.contains("NOT CONNECTED"),
          "the restarted server's counts", WAIT);
      assertThat(back).contains("reconnected");
      assertThat(pane.running()).isTrue();
      pane.keys("q");
    } finally {
      server.forceStop();
      if (restarted != null) {
        restarted.forceStop();
      }
    }
  }

  @Test
  void readsAnAdminListenerThatRequiresAClientCertificate() throws Exception {
    assumeTrue(System.getenv("CI") != null || TmuxPane.available(),
        "tmux is not installed (CI installs it)");
    TlsFiles admin = TlsFiles.init(tempDir.resolve("admin-tls"), "operator");
    SluiceProcess server = SluiceProcess.start(tempDir.resolve("root"),
        tempDir.resolve("server.log"), WAIT, List.of(), List.of("--warm-up-jobs", "0",
            "--admin-tls-cert", admin.serverCert().toString(),
            "--admin-tls-key", admin.serverKey().toString(),
            "--admin-tls-client-ca", admin.caCert().toString()));
    String topArguments = "https://127.0.0.1:" + server.adminPort()
        + " --ca-cert " + admin.caCert() + " --client-cert " + admin.clientCert("operator")
        + " --client-key " + admin.clientKey("operator");
    try (TmuxPane pane = TmuxPane.start(topScript(topArguments), COLUMNS, ROWS)) {
      enqueue(server, "render", "pdf.render", 4);
      String screen = pane.await(s -> s.contains("Ready (4)"), "the counts over mTLS", WAIT);
      assertThat(screen).contains("https://127.0.0.1:" + server.adminPort())
          .doesNotContain("NOT CONNECTED");
      pane.keys("q");
    } finally {
      server.forceStop();
    }
  }

  private static String plainUrl(SluiceProcess server) {
    return "http://127.0.0.1:" + server.adminPort();
  }

  /**
   * A script that runs {@code sluice top} from the test classpath; {@code urlAndOptions} follow
   * {@code --url}.
   */
  private Path topScript(String urlAndOptions) throws Exception {
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Path arguments = tempDir.resolve("top.args");
    Files.writeString(arguments, "-cp \"" + System.getProperty("java.class.path") + "\"\n"
        + "io.sluice.cli.Main top --url " + urlAndOptions + " -r 200\n");
    Path script = tempDir.resolve("top.sh");
    Files.writeString(script, "#!/bin/sh\nexec '" + java + "' @" + arguments + " 2>"
        + tempDir.resolve("top.err") + "\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
    return script;
  }

  private static List<String> enqueue(SluiceProcess server, String queue, String type,
      int count) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String body = post(server, "/jobs", "{\"queue\":\"" + queue + "\",\"type\":\"" + type
          + "\",\"payload\":{\"n\":" + i + "}}");
      ids.add(body.replaceAll(".*\"id\":\"([^\"]+)\".*", "$1"));
    }
    return ids;
  }

  private static String post(SluiceProcess server, String path, String json) throws Exception {
    var response = server.post(path, json);
    assertThat(response.statusCode()).as("POST %s: %s", path, response.body()).isIn(200, 201);
    return response.body();
  }
}
