package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --warm-up-jobs}: 3,000 by default, 0 to skip, anything else refused by name. */
class ServeWarmUpOptionTest {
  @TempDir Path root;

  private ServeCommand.ServerSettings settings(String... extra) {
    return ServeFlags.parsed(root, extra).settings();
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
