package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.CliRunner;
import io.sluice.cli.Main;
import org.junit.jupiter.api.Test;

/** {@code sluice tls} itself: a usage error without a subcommand; {@code --version} on each. */
class TlsCommandTest {
  @Test
  void needsASubcommandAndListsThem() {
    CliRunner.Result result = sluice("tls");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Missing required subcommand")
        .contains("init", "ca", "server-cert", "client-cert");
  }

  @Test
  void printsTheProductVersionFromEverySubcommand() {
    for (String subcommand : new String[] {"init", "ca", "server-cert", "client-cert"}) {
      CliRunner.Result result = sluice("tls", subcommand, "--version");

      assertThat(result.exitCode()).isZero();
      assertThat(result.out()).isEqualTo("sluice " + Main.PRODUCT_VERSION + "\n");
    }
  }
}
