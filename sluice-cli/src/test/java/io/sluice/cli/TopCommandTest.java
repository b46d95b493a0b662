package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.startup.CliProcess;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice top}'s start-up errors, in a separate process without a terminal. */
class TopCommandTest {
  @TempDir Path workDir;

  @Test
  void refusesARefreshRateOutOfRange() throws Exception {
    CliProcess top = CliProcess.of(workDir, "top", "-r", "50");
    assertThat(top.exitStatus()).isEqualTo(1);
    assertThat(top.output()).contains("Error: --refresh-rate must be from 100 to 60000 ms");
  }

  @Test
  void refusesAClientCertificateWithoutItsKey() throws Exception {
    CliProcess top = CliProcess.of(workDir, "top", "--url", "https://127.0.0.1:1",
        "--client-cert", "me.pem");
    assertThat(top.exitStatus()).isEqualTo(1);
    assertThat(top.output())
        .contains("Error: --client-cert and --client-key must be provided together");
  }

  @Test
  void needsATerminal() throws Exception {
    CliProcess top = CliProcess.of(workDir, "top", "--url", "http://127.0.0.1:1");
    assertThat(top.exitStatus()).isEqualTo(1);
    assertThat(top.output()).contains("Error: sluice top needs a terminal");
  }
}
