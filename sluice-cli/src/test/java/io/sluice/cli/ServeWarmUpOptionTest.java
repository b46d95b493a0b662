package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --warm-up-jobs}: 3,000 by default, 0 to skip, anything else refused by name. */
class ServeWarmUpOptionTest {
  @TempDir Path root;

  private ServeCommand.ServerSettings settings(String... extra) {
    ServeCommand command = new ServeCommand();
    String[] args = new String[extra.length + 2];
    args[0] = "--root-dir";
    args[1] = root.toString();
    System.arraycopy(extra, 0, args, 2, extra.length);
    new CommandLine(command).parseArgs(args);
    return command.settings();
  }

  @Test
  void defaultsToThreeThousandJobsAndZeroSkipsIt() {
    assertThat(settings().warmUpJobs()).isEqualTo(3_000);
    assertThat(settings("--warm-up-jobs", "0").warmUpJobs()).isZero();
  }

  @Test
  void aNegativeOrNonNumericCountIsRefusedByName() {
    for (String bad : new String[] {"-1", "many", "10000000000"}) {
      assertThatThrownBy(() -> settings("--warm-up-jobs", bad))
          .isInstanceOf(ServeCommand.StartupException.class)
          .hasMessageContaining("--warm-up-jobs").hasMessageContaining(bad);
    }
  }
}
