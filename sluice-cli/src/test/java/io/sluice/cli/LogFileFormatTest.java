package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.LogFileConfig.Rotation;
import io.sluice.engine.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log formats in a file (CLI.md §7): {@code compact} unless asked otherwise, {@code pretty}
 * without colour escapes, {@code json} one parsable object per line; and the levels of the
 * stdout set-up hold for files too.
 */
@ExtendWith(RestoresDefaultLogging.class)
class LogFileFormatTest {
  private static final Logger LOG = LoggerFactory.getLogger("io.sluice.test.format");
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private void configure(String format) {
    LoggingSetup.configure(format, "info", new LogFileConfig(dir, Rotation.DAILY, 1_000_000, 3),
        new ManualClock());
  }

  private List<String> lines() throws IOException {
    return Files.readAllLines(dir.resolve("sluice.log"));
  }

  @Test
  void theAutomaticFormatForFilesIsCompact() throws IOException {
    configure("");

    LOG.info("hello");

    assertThat(lines()).singleElement().asString()
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  format \\[.+] hello");
  }

  @Test
  void prettyInAFileHasNoColours() throws IOException {
    configure("pretty");

    LOG.warn("careful");

    assertThat(lines()).singleElement().asString()
        .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  format careful");
  }

  @Test
  void everyJsonLineParsesAsAnObjectWithTheSpecifiedFields() throws IOException {
    configure("json");

    LOG.info("plain");
    LOG.info("quote \" backslash \\ newline \n tab \t done");
    LOG.error("failed", new IllegalStateException("boom"));

    List<JsonNode> objects = new ArrayList<>();
    for (String line : lines()) {
      objects.add(JSON.readTree(line));
    }
    assertThat(objects).hasSize(3).allSatisfy(object -> {
      assertThat(object.path("timestamp").asText()).endsWith("Z");
      assertThat(object.path("target").asText()).isEqualTo("io.sluice.test.format");
    });
    assertThat(objects.get(0).path("level").asText()).isEqualTo("INFO");
    assertThat(objects.get(1).path("fields").path("message").asText())
        .isEqualTo("quote \" backslash \\ newline \n tab \t done");
    assertThat(objects.get(2).path("level").asText()).isEqualTo("ERROR");
    assertThat(objects.get(2).path("fields").path("error").asText()).contains("boom");
  }

  @Test
  void sluiceLoggersFollowTheLevelAndLibrariesLogFromWarn() throws IOException {
    LoggingSetup.configure("compact", "debug",
        new LogFileConfig(dir, Rotation.DAILY, 1_000_000, 3), new ManualClock());

    LOG.debug("sluice debug");
    LoggerFactory.getLogger("io.netty.test").info("library info");
    LoggerFactory.getLogger("io.netty.test").warn("library warn");

    assertThat(lines()).hasSize(2)
        .anySatisfy(line -> assertThat(line).endsWith("sluice debug"))
        .anySatisfy(line -> assertThat(line).endsWith("library warn"));
  }

  @Test
  void aLogFileThatCannotBeOpenedIsAStartUpErrorNamingIt() throws IOException {
    Files.createDirectory(dir.resolve("sluice.log"));

    assertThatThrownBy(() -> configure("compact"))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessageStartingWith("unusable log file " + dir.resolve("sluice.log"));
  }
}
