package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cli.LogFileConfig.Rotation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log-file flags of {@code sluice serve} (CLI.md §2.1): their defaults, where the files go,
 * and the start-up errors for values that make no sense, all before anything is opened.
 */
class LogFileOptionsTest {
  @TempDir Path root;
  @TempDir Path elsewhere;

  private LogFileConfig logFiles(String... extra) {
    ServeCommand command = ServeFlags.parsed(root, extra);
    command.settings();
    return command.logFiles.config();
  }

  @Test
  void logsGoToStdoutUnlessAskedOtherwise() {
    assertThat(logFiles()).isNull();
    assertThat(root.resolve("log")).doesNotExist();
  }

  @Test
  void logToDiskWritesUnderTheRootDirectoryWithTheDocumentedDefaults() {
    LogFileConfig config = logFiles("--log-to-disk");

    assertThat(config).isEqualTo(
        new LogFileConfig(root.resolve("log"), Rotation.DAILY, 100_000_000, 10));
    assertThat(config.file()).isEqualTo(root.resolve("log").resolve("sluice.log"));
    assertThat(root.resolve("log")).isDirectory();
  }

  @Test
  void aLogDirectoryImpliesLoggingToDiskAndIsCreated() {
    Path dir = elsewhere.resolve("a").resolve("b");

    LogFileConfig config = logFiles("--log-dir", dir.toString(), "--log-rotation", "hourly",
        "--log-max-size", "1MiB", "--log-max-files", "3");

    assertThat(config).isEqualTo(new LogFileConfig(dir, Rotation.HOURLY, 1 << 20, 3));
    assertThat(dir).isDirectory();
  }

  @Test
  void neverIsARotation() {
    assertThat(logFiles("--log-to-disk", "--log-rotation", "never").rotation())
        .isEqualTo(Rotation.NEVER);
  }

  @Test
  void anUnknownRotationIsRefusedByName() {
    assertThatThrownBy(() -> logFiles("--log-rotation", "weekly"))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessage("invalid value for --log-rotation: 'weekly'"
            + " (expected one of daily, hourly, never)");
  }

  @Test
  void aSizeThatIsNotASizeOrIsZeroIsRefusedByName() {
    for (String bad : new String[] {"lots", "10 parsecs", "-5MB", "0"}) {
      assertThatThrownBy(() -> logFiles("--log-to-disk", "--log-max-size=" + bad))
          .isInstanceOf(ServeCommand.StartupException.class)
          .hasMessageContaining("--log-max-size").hasMessageContaining(bad);
    }
  }

  @Test
  void aFileCountOutsideOneToAThousandIsRefusedByName() {
    for (String bad : new String[] {"0", "-1", "1001", "ten"}) {
      assertThatThrownBy(() -> logFiles("--log-to-disk", "--log-max-files=" + bad))
          .isInstanceOf(ServeCommand.StartupException.class)
          .hasMessage("invalid value for --log-max-files: '" + bad
              + "' (expected an integer from 1 to 1000)");
    }
  }

  @Test
  void anUnusableLogDirectoryIsAStartUpErrorNamingIt() throws Exception {
    Path file = Files.writeString(elsewhere.resolve("not-a-directory"), "");

    assertThatThrownBy(() -> logFiles("--log-dir", file.toString()))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessageStartingWith("unusable log directory " + file);
  }

  @Test
  void sluiceServeExitsWithStatusOneAndPrintsTheError() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream originalErr = System.err;
    int status;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      status = Main.run("serve", "--root-dir", root.toString(), "--log-rotation", "weekly");
    } finally {
      System.setErr(originalErr);
    }

    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
        "Error: invalid value for --log-rotation: 'weekly' (expected one of daily, hourly, never)"
            + System.lineSeparator());
  }
}
