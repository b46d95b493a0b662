package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.HttpLimits;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The HTTP limit flags of {@code sluice serve}: their defaults, their value formats (CLI.md §1.2)
 * and the start-up error naming the flag for each value that makes no sense.
 */
class ServeHttpOptionsTest {
  @TempDir Path root;

  private HttpLimits limits(String... flags) {
    return ServeFlags.parsed(root, flags).settings().api().limits();
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    assertThat(limits()).isEqualTo(new HttpLimits(256L << 20, 10_000, 60_000, 30_000, 10_000));
    assertThat(limits()).isEqualTo(HttpLimits.DEFAULTS);
  }

  @Test
  void valuesUseTheSizeAndDurationFormats() {
    HttpLimits limits = limits("--max-body-size", "1GiB", "--header-read-timeout", "2.5s",
        "--idle-timeout", "1m30s", "--body-read-timeout", "750", "--max-connections", "5");

    assertThat(limits).isEqualTo(new HttpLimits(1L << 30, 2500, 90_000, 750, 5));
  }

  @Test
  void theSmallestBodyLimitIsTheSizeTheApiMustAccept() {
    assertThat(limits("--max-body-size", "64MiB").maxBodyBytes()).isEqualTo(64L << 20);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "--max-body-size|67108863|invalid value for --max-body-size: '67108863' (expected from"
        + " 64MiB, the body size the API must accept, to 1GiB)",
    "--max-body-size|2GiB|invalid value for --max-body-size: '2GiB' (expected from 64MiB, the"
        + " body size the API must accept, to 1GiB)",
    "--max-body-size|lots|invalid size for --max-body-size: 'lots'",
    "--header-read-timeout|0|invalid value for --header-read-timeout: '0' (expected a duration"
        + " of at least 1ms)",
    "--header-read-timeout|soon|invalid duration for --header-read-timeout: 'soon'",
    "--idle-timeout|0s|invalid value for --idle-timeout: '0s' (expected a duration of at least"
        + " 1ms)",
    "--idle-timeout|-5s|invalid duration for --idle-timeout: '-5s'",
    "--body-read-timeout|0.1ms|invalid value for --body-read-timeout: '0.1ms' (expected a"
        + " duration of at least 1ms)",
    "--max-connections|0|invalid value for --max-connections: '0' (expected an integer from 1"
        + " to 2147483647)",
    "--max-connections|many|invalid value for --max-connections: 'many'"
  })
  void anUnusableValueIsRefusedByName(String flag, String value, String message) {
    assertThatThrownBy(() -> limits(flag, value))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessageStartingWith(message);
  }
}
