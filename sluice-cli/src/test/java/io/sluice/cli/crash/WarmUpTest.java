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
 * {@code sluice serve} with its start-up warm-up, as an operator runs it: the warm-up's jobs go
 * through a throwaway server, nothing of them reaches the real server or its disk, and a stop
 * asked for during the warm-up ends the process cleanly.
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
      assertThat(server.output()).contains("warmed up with 3000 jobs");
      assertThat(server.output().split("\\(primary\\)", -1))
          .as("only the real server announces its port").hasSize(2);
      assertThat(server.output()).contains("listening on " + server.uri("") + " (primary)");
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

  /**
   * The real server starts with what the warm-up compiled: no compiled code of Sluice's is
   * thrown away after it. A warm-up server's close used to load classes its requests never had
   * (more kinds of futures and tasks), which invalidated the compiled request paths, so the real
   * server's first second of requests ran interpreted. Read from the JVM's own compilation log.
   */
  @Test
  void noCompiledCodeOfSluiceIsThrownAwayOnceTheWarmUpIsOver() throws Exception {
    SluiceProcess server = SluiceProcess.start(root, logs.resolve("server.log"),
        Duration.ofSeconds(90), List.of("-Djava.io.tmpdir=" + tmp, "-XX:TieredStopAtLevel=1",
            "-Xlog:jit+compilation=debug:stdout:none"), List.of());
    try {
      String output = server.output();
      int warmedUp = output.indexOf("warmed up with 3000 jobs");
      assertThat(warmedUp).as("the warm-up ran").isPositive();
      assertThat(output.substring(0, warmedUp)).as("compilations are logged")
          .contains("io.sluice.engine.EngineLoop::");
      assertThat(output.substring(warmedUp).lines()
          .filter(line -> line.contains("made not entrant") && line.contains("io.sluice.")))
          .isEmpty();
    } finally {
      server.forceStop();
    }
  }

  @Test
  void aStopDuringTheWarmUpEndsTheProcessCleanlyAndLeavesNothingBehind() throws Exception {
    SluiceProcess server = SluiceProcess.launch(root, logs.resolve("server.log"),
        List.of("-Djava.io.tmpdir=" + tmp), List.of("--warm-up-jobs", "1000000"));
    try {
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!server.output().contains("warming up") && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(server.output()).contains("warming up");

      assertThat(server.sigterm(Duration.ofSeconds(30))).as("exit status").isZero();
      assertThat(server.output()).contains("Stopped during the warm-up.")
          .as("the real server never opened its port")
          .doesNotContain("listening on " + server.uri("") + " (primary)");
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(path -> path.getFileName().toString()))
            .noneMatch(name -> name.startsWith("sluice-warm-up-"));
      }
    } finally {
      server.forceStop();
    }
  }
}
