package io.sluice.cli.startup;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code sluice} as a separate process on the test classpath and waits for it to exit. */
public record CliProcess(int exitStatus, String output) {
  public static CliProcess of(Path workDir, String... args) throws Exception {
    return of(workDir, List.of(), args);
  }

  /** As {@link #of(Path, String...)}, with {@code jvmOptions} before the main class. */
  public static CliProcess of(Path workDir, List<String> jvmOptions, String... args)
      throws Exception {
    String javaBin = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(List.of(javaBin));
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main"));
    command.addAll(List.of(args));
    Path log = Files.createTempFile(workDir, "cli", ".log");
    ProcessBuilder builder = new ProcessBuilder(command)
        .directory(workDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
    Process process = builder.start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("sluice " + String.join(" ", args) + " did not exit within 60 s:\n"
          + Files.readString(log, StandardCharsets.UTF_8));
    }
    return new CliProcess(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }
}
