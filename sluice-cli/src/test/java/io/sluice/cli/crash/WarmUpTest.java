package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
  /** The warm-up's last line; fewer than its jobs when a busy machine ran out of time. */
  private static final Pattern WARMED_UP = Pattern.compile("warmed up with (\\d+) jobs");

  @TempDir Path root;
  @TempDir Path tmp;
  @TempDir Path logs;

  @Test
  void theDefaultWarmUpLeavesNothingBehind() throws Exception {
    SluiceProcess server = startWith();
    try {
      assertThat(server.output()).containsPattern(WARMED_UP);
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
   * The real server starts with what the warm-up compiled. A warm-up server's close used to load
   * classes its requests never had (more kinds of futures and tasks), which invalidated the
   * compiled request paths, and the real server's first second of requests ran interpreted.
   * Read from the JVM's own compilation log, with the C1 compiler only (as {@code bin/sluice}
   * runs it), so that "made not entrant" means code thrown away, not code replaced by a higher
   * tier: none of these request-path methods may be last seen thrown away when the port opens.
   */
  @Test
  void noRequestPathIsLeftThrownAwayWhenTheRealServerOpens() throws Exception {
    SluiceProcess server = startWith("-XX:TieredStopAtLevel=1",
        "-Xlog:jit+compilation=debug:stdout:none");
    try {
      StartUp startUp = StartUp.of(server);
      // A machine too busy to finish the warm-up in its time says nothing about this.
      assumeTrue(startUp.jobsWarmedUp() == 3000, "the warm-up ran out of time");
      List<String> log = startUp.untilPortOpens().lines().toList();
      assertThat(log).as("compilations are logged")
          .anyMatch(line -> line.contains("io.sluice.engine.EngineLoop::"));
      for (String method : List.of("io.sluice.engine.EngineLoop::turn ",
          "io.sluice.api.JobRoutes::enqueue ", "io.sluice.api.TakeStream::writeFrom ",
          "io.sluice.api.http.Exchange::respond ")) {
        // Not compiled yet is allowed (a busy machine compiles late); thrown away is not.
        log.stream().filter(line -> line.contains(method)).reduce((a, b) -> b)
            .ifPresent(line -> assertThat(line)
                .as("the last word on %s before the port opens", method)
                .doesNotContain("made not entrant"));
      }
    } finally {
      server.forceStop();
    }
  }

  /**
   * The warm-up's garbage is collected before the port opens, so the first collection a client
   * waits on is not the one that clears it. Read from the JVM's own collection log, with the
   * serial collector as {@code bin/sluice} runs it.
   */
  @Test
  void theWarmUpsGarbageIsCollectedBeforeThePortOpens() throws Exception {
    SluiceProcess server = startWith("-XX:+UseSerialGC", "-Xlog:gc:stdout:none");
    try {
      assertThat(StartUp.of(server).afterWarmUpUntilPortOpens())
          .as("between the warm-up's end and the port opening")
          .contains("Pause Full (System.gc())");
    } finally {
      server.forceStop();
    }
  }

  private SluiceProcess startWith(String... jvmFlags) throws Exception {
    List<String> flags = new ArrayList<>(List.of("-Djava.io.tmpdir=" + tmp));
    flags.addAll(List.of(jvmFlags));
    return SluiceProcess.start(root, logs.resolve("server.log"), Duration.ofSeconds(90), flags,
        List.of());
  }

  /** What a server printed before its port opened, and where the warm-up's last line ends. */
  private record StartUp(String output, int jobsWarmedUp, int warmUpEnded, int portOpened) {
    static StartUp of(SluiceProcess server) {
      String output = server.output();
      Matcher warmedUp = WARMED_UP.matcher(output);
      assertThat(warmedUp.find()).as("the warm-up ran").isTrue();
      int portOpened = output.indexOf("listening on " + server.uri("") + " (primary)");
      assertThat(portOpened).isPositive();
      return new StartUp(output, Integer.parseInt(warmedUp.group(1)), warmedUp.end(), portOpened);
    }

    String untilPortOpens() {
      return output.substring(0, portOpened);
    }

    String afterWarmUpUntilPortOpens() {
      return output.substring(warmUpEnded, portOpened);
    }
  }

  @Test
  void aStopDuringTheWarmUpEndsTheProcessCleanlyAndLeavesNothingBehind() throws Exception {
    SluiceProcess server = SluiceProcess.launch(root, logs.resolve("server.log"),
        List.of("-Djava.io.tmpdir=" + tmp, "-XX:+UseSerialGC", "-Xlog:gc:stdout:none"),
        List.of("--warm-up-jobs", "1000000"));
    try {
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!server.output().contains("warming up") && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(server.output()).contains("warming up");

      assertThat(server.sigterm(Duration.ofSeconds(30))).as("exit status").isZero();
      assertThat(server.output()).contains("Stopped during the warm-up.")
          .as("the real server never opened its port")
          .doesNotContain("listening on " + server.uri("") + " (primary)")
          .as("nor collected the warm-up's leftovers for it")
          .doesNotContain("Pause Full (System.gc())");
      try (Stream<Path> left = Files.list(tmp)) {
        assertThat(left.map(path -> path.getFileName().toString()))
            .noneMatch(name -> name.startsWith("sluice-warm-up-"));
      }
    } finally {
      server.forceStop();
    }
  }
}
