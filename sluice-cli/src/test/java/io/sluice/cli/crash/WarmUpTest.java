package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice serve} with its default start-up warm-up, as an operator runs it: the warm-up's
 * jobs go through a throwaway server, and nothing of them reaches the real server or its disk.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class WarmUpTest {
  @TempDir Path root;
  @TempDir Path tmp;
  @TempDir Path logs;

  @Test
  void theDefaultWarmUpLeavesNothingBehind() throws Exception {
    SluiceProcess server = SluiceProcess.start(root, logs.resolve("server.log"),
        Duration.ofSeconds(90), List.of("-Djava.io.tmpdir=" + tmp), List.of());
    try {
      assertThat(server.output()).contains("warmed up with 10000 jobs");
      assertThat(server.get("/jobs/count").body()).isEqualTo("{\"count\":0}");
      assertThat(server.get("/queues").body()).doesNotContain("warm-up");
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(path -> path.getFileName().toString()))
            .noneMatch(name -> name.startsWith("sluice-warm-up-"));
      }
      try (Stream<Path> stored = Files.list(root)) {
        assertThat(stored.map(path -> path.getFileName().toString())).containsExactly("data");
      }
    } finally {
      server.forceStop();
    }
  }
}
