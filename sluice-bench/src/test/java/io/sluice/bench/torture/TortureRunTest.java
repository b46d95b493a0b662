package io.sluice.bench.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.ClientKit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The short version of {@code bin/sluice-torture} for every build: three SIGKILL cycles per commit
 * mode against {@code sluice serve} started from this test's classpath (sluice-cli is a test
 * dependency), then the drain and the reconciliation.
 */
class TortureRunTest {

  private static final String[] SHORT = {"--cycles", "3", "--min-load-ms", "200", "--max-load-ms", "600",
      "--startup-timeout", "30", "--drain-timeout", "60"};

  @ParameterizedTest
  @ValueSource(strings = {"buffered", "fsync"})
  void losesNothingAcknowledgedAcrossSigkills(String mode, @TempDir Path dir) {
    TortureOptions opt = TortureOptions.parse(SHORT).withServerCommand(List.of(TortureOptions.javaBinary(), "-cp",
        System.getProperty("java.class.path"), "io.sluice.cli.Main"));
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);

    TortureRun.Result result;
    try (ClientKit kit = new ClientKit(opt.clientThreads())) {
      result = new TortureRun(opt, mode, kit, dir, new Random(opt.seed()), InstantSource.system(), out).run();
    }
    TortureReport.print(result, out);
    System.out.println(output.toString(StandardCharsets.UTF_8));

    Reconciliation r = result.reconciliation();
    assertThat(r.mustBeZero()).allSatisfy((label, value) -> assertThat(value).as(label).isZero());
    assertThat(result.cleanExitStatus()).isZero();
    assertThat(result.cycles()).hasSize(3);
    assertThat(r.figures().get("enqueues acknowledged")).isPositive();
    assertThat(r.figures().get("acks acknowledged")).isPositive();
    assertThat(result.ok()).isTrue();
  }
}
