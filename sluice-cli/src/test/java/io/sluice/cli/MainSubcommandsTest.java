package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code sluice} adds only the subcommand it runs, found by the name it is listed under. */
class MainSubcommandsTest {
  @Test
  void eachSubcommandIsListedUnderItsOwnName() {
    for (Map.Entry<String, Class<?>> entry : Main.SUBCOMMANDS.entrySet()) {
      assertThat(new CommandLine(entry.getValue()).getCommandName())
          .isEqualTo(entry.getKey());
    }
  }

  @Test
  void theHelpListsEveryCommandButTheHiddenWarmUpAndANamedOneRuns() {
    CliRunner.Result help = CliRunner.sluice("--help");
    assertThat(help.exitCode()).isZero();
    assertThat(help.out()).contains("serve", "tls", "backup", "restore", "compact", "top")
        .doesNotContain("warm-up");

    CliRunner.Result serveHelp = CliRunner.sluice("serve", "--help");
    assertThat(serveHelp.exitCode()).isZero();
    assertThat(serveHelp.out()).contains("Usage: sluice serve");

    CliRunner.Result unknown = CliRunner.sluice("serv");
    assertThat(unknown.exitCode()).isNotZero();
    assertThat(unknown.err()).contains("serve"); // picocli suggests the command meant
  }
}
