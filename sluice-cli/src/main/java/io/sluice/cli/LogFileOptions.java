package io.sluice.cli;

import io.sluice.cli.LogFileConfig.Rotation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine.Option;

/**
 * The log-file flags of {@code sluice serve} (CLI.md §2.1 "Logging"), mixed into {@link
 * ServeCommand}. {@link #validate} runs with the other start-up checks, before anything is
 * opened or bound; {@link #config} then tells the logging set-up where to write.
 */
final class LogFileOptions {
  private static final int MAX_FILES_LIMIT = 1000;

  @Option(names = "--log-to-disk",
      description = "Write logs to rotated files in <root-dir>/log/ instead of stdout"
          + " (SLUICE_LOG_TO_DISK).")
  boolean toDisk;

  @Option(names = "--log-dir", paramLabel = "<PATH>", defaultValue = "${env:SLUICE_LOG_DIR:-}",
      description = "Write logs to <PATH>/sluice.log (implies --log-to-disk).")
  String dir;

  @Option(names = "--log-rotation", paramLabel = "<daily|hourly|never>",
      defaultValue = "${env:SLUICE_LOG_ROTATION:-daily}",
      description = "Rotate log files at each UTC day or hour, or only by size"
          + " (default: ${DEFAULT-VALUE}).")
  String rotation;

  @Option(names = "--log-max-size", paramLabel = "<SIZE>",
      defaultValue = "${env:SLUICE_LOG_MAX_SIZE:-100MB}",
      description = "A log file reaching this size is rotated (default: ${DEFAULT-VALUE}).")
  String maxSize;

  @Option(names = "--log-max-files", paramLabel = "<N>",
      defaultValue = "${env:SLUICE_LOG_MAX_FILES:-10}",
      description = "Rotated log files kept; the oldest beyond this are deleted"
          + " (default: ${DEFAULT-VALUE}).")
  String maxFiles;

  /** Set by {@link #validate}; null when logs go to stdout. */
  private LogFileConfig config;

  /**
   * Checks every value, even when logs go to stdout, and creates the log directory when they go
   * to disk.
   *
   * @throws ServeCommand.StartupException naming the flag or the directory at fault
   */
  void validate(Path rootDir) {
    Rotation parsedRotation = rotation(rotation);
    long parsedMaxSize = maxSize(maxSize);
    int parsedMaxFiles = maxFiles(maxFiles);
    boolean hasDir = dir != null && !dir.isEmpty();
    if (!hasDir && !toDisk && !EnvFlags.isSet("SLUICE_LOG_TO_DISK")) {
      config = null;
      return;
    }
    Path logDir = hasDir ? Path.of(dir) : rootDir.resolve("log");
    try {
      Files.createDirectories(logDir);
    } catch (Exception e) {
      throw new ServeCommand.StartupException(
          "unusable log directory " + logDir + ": " + e.getMessage());
    }
    if (!Files.isDirectory(logDir) || !Files.isWritable(logDir)) {
      throw new ServeCommand.StartupException(
          "unusable log directory " + logDir + ": not a writable directory");
    }
    config = new LogFileConfig(logDir, parsedRotation, parsedMaxSize, parsedMaxFiles);
  }

  /** Where logs go once {@link #validate} has passed: null for stdout. */
  LogFileConfig config() {
    return config;
  }

  private static Rotation rotation(String value) {
    Rotation[] rotations = Rotation.values();
    ServeOptionValues.oneOf(value, "--log-rotation",
        Arrays.stream(rotations).map(Rotation::flagValue).toArray(String[]::new));
    return Arrays.stream(rotations).filter(r -> r.flagValue().equals(value)).findFirst()
        .orElseThrow();
  }

  private static long maxSize(String value) {
    return ServeOptionValues.bytes(value, "--log-max-size", 1, Long.MAX_VALUE,
        "at least 1 byte");
  }

  private static int maxFiles(String value) {
    return (int) ServeOptionValues.integer(value, "--log-max-files", 1, MAX_FILES_LIMIT);
  }
}
