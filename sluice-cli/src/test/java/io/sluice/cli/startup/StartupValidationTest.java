package io.sluice.cli.startup;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CLI.md §2.2 against the real process: every start-up check prints {@code Error: <message>} and
 * exits 1 before any socket is bound or the store is opened.
 */
class StartupValidationTest {
  @TempDir Path dir;

  /** {@code sluice serve} with {@code flags}, on ports the system chooses unless they say. */
  private CliProcess serve(String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("serve", "--root-dir",
        dir.resolve("root").toString(), "--warm-up-jobs", "0"));
    for (String port : List.of("--port", "--admin-port")) {
      if (!List.of(flags).contains(port)) {
        args.addAll(List.of(port, "0"));
      }
    }
    args.addAll(List.of(flags));
    return CliProcess.of(dir, args.toArray(String[]::new));
  }

  private void assertRefused(CliProcess run, String message) {
    assertThat(run.exitStatus()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).contains("Error: " + message);
    assertThat(run.output()).doesNotContain("listening on");
    assertThat(dir.resolve("root").resolve("data")).as("the store was never opened").doesNotExist();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "--tls-cert|--tls-cert and --tls-key must be provided together",
    "--tls-key|--tls-cert and --tls-key must be provided together",
    "--tls-client-ca|--tls-client-ca requires --tls-cert and --tls-key",
    "--admin-tls-cert|--admin-tls-cert and --admin-tls-key must be provided together",
    "--admin-tls-key|--admin-tls-cert and --admin-tls-key must be provided together",
    "--admin-tls-client-ca|--admin-tls-client-ca requires --admin-tls-cert and --admin-tls-key"
  })
  void aTlsFlagWithoutItsPartnerIsRefused(String flag, String message) throws Exception {
    Path file = Files.writeString(dir.resolve("some.pem"), "unused");

    assertRefused(serve(flag, file.toString()), message);
  }

  @Test
  void theAdminTlsFlagsAreCheckedEvenWithoutTheAdminListener() throws Exception {
    Path file = Files.writeString(dir.resolve("some.pem"), "unused");

    assertRefused(serve("--no-admin", "--admin-tls-cert", file.toString()),
        "--admin-tls-cert and --admin-tls-key must be provided together");
  }

  @Test
  void aClientCaWithOnlyOneOfCertAndKeyReportsThePair() throws Exception {
    Path file = Files.writeString(dir.resolve("some.pem"), "unused");

    assertRefused(serve("--tls-cert", file.toString(), "--tls-client-ca", file.toString()),
        "--tls-cert and --tls-key must be provided together");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "--port|http|invalid value for --port: 'http'",
    "--admin-port|70000|invalid value for --admin-port: '70000'",
    "--enqueue-batch-size|0|invalid value for --enqueue-batch-size: '0'",
    "--complete-batch-size|many|invalid value for --complete-batch-size: 'many'",
    "--heartbeat-interval|3 parsecs|invalid duration for --heartbeat-interval: '3 parsecs'",
    "--cache-size|lots|invalid size for --cache-size: 'lots'",
    "--default-commit-mode|sometimes|invalid value for --default-commit-mode: 'sometimes'",
    "--max-body-size|32MiB|invalid value for --max-body-size: '32MiB'",
    "--idle-timeout|0|invalid value for --idle-timeout: '0'"
  })
  void anUnparsableValueIsRefusedByName(String flag, String value, String message)
      throws Exception {
    assertRefused(serve(flag, value), message);
  }

  @Test
  void aBusyPrimaryPortBindsNothing() throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = busy.getLocalPort();

      CliProcess run = serve("--port", Integer.toString(port));

      assertRefused(run, "cannot listen on 127.0.0.1:" + port + " (--port)");
    }
  }

  @Test
  void aBusyAdminPortBindsNothing() throws Exception {
    try (ServerSocket busy = new ServerSocket()) {
      busy.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = busy.getLocalPort();

      CliProcess run = serve("--admin-port", Integer.toString(port));

      assertRefused(run, "cannot listen on 127.0.0.1:" + port + " (--admin-port)");
    }
  }

  @Test
  void aRootDirectoryThatIsAFileIsRefused() throws Exception {
    Path file = Files.writeString(dir.resolve("root"), "not a directory");

    CliProcess run = serve();

    assertThat(run.exitStatus()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).contains("Error: unusable root directory " + file);
  }
}
