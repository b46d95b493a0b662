package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.startup.CliProcess;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BouncyCastle's jars are signed, so loading any of its classes makes the JVM verify their
 * signatures (about 0.2 s). Picocli builds every command, the TLS ones included, whatever is run,
 * so only running a TLS command may load BouncyCastle.
 */
class CliStartWithoutBouncyCastleTest {
  @TempDir Path workDir;

  @Test
  void versionAndHelpLoadNoBouncyCastleClass() throws Exception {
    for (String argument : List.of("--version", "--help")) {
      CliProcess run = CliProcess.of(workDir, List.of("-Xlog:class+load=info"), argument);

      assertThat(run.exitStatus()).as(argument).isZero();
      assertThat(run.output()).as(argument)
          .contains("io.sluice.cli.tls.TlsInitCommand source:")
          .contains("io.sluice.cli.tls.TlsServerCertCommand source:")
          .doesNotContain("org.bouncycastle");
    }
  }

  @Test
  void aTlsCommandLoadsIt() throws Exception {
    CliProcess run = CliProcess.of(workDir, List.of("-Xlog:class+load=info"),
        "tls", "ca", "--out-dir", workDir.resolve("certs").toString());

    assertThat(run.exitStatus()).as(run.output()).isZero();
    assertThat(run.output()).contains("org.bouncycastle");
  }
}
