package io.sluice.bench.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class TortureOptionsTest {

  @Test
  void defaultsToAHundredCyclesInBothModesAgainstTheCheckoutsJar() {
    TortureOptions o = TortureOptions.parse(new String[] {"--project", "/src/sluice"});

    assertThat(o.cycles()).isEqualTo(100);
    assertThat(o.modes()).containsExactly("buffered", "fsync");
    assertThat(o.serverCommand()).endsWith("-jar", Path.of("/src/sluice/sluice-cli/target/sluice.jar").toString());
    assertThat(o.serveCommand("fsync")).endsWith("serve", "--warm-up-jobs", "0", "--default-commit-mode", "fsync");
  }

  @Test
  void passesTheEnqueueCommitModeOnlyWhenGiven() {
    TortureOptions o = TortureOptions.parse(new String[] {"--mode=buffered", "--enqueue-commit-mode", "fsync"});

    assertThat(o.modes()).containsExactly("buffered");
    assertThat(o.withServerCommand(List.of("sluice")).serveCommand("buffered")).containsExactly("sluice", "serve",
        "--warm-up-jobs", "0", "--default-commit-mode", "buffered", "--enqueue-commit-mode", "fsync");
  }

  @Test
  void rejectsUnknownModesAndAnEmptyLoadRange() {
    assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--mode", "sync"}))
        .hasMessage("--mode must be buffered, fsync or both");
    assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--min-load-ms", "500", "--max-load-ms", "400"}))
        .hasMessage("--min-load-ms must not exceed --max-load-ms");
    assertThatThrownBy(() -> TortureOptions.parse(new String[] {"--cycles"})).hasMessage("--cycles needs a value");
  }
}
