package io.sluice.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Runs the {@code sluice} command line in-process, as {@link Main#main} would but without exiting,
 * and captures what it prints. It swaps {@code System.out} and {@code System.err} for the run, so
 * tests that use it must not run concurrently with others that print.
 */
public final class CliRunner {
  private CliRunner() {}

  /** What one run printed, and its exit status. */
  public record Result(int exitCode, String out, String err) {}

  /** Runs {@code sluice <args>}. */
  public static Result sluice(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int exitCode;
    try {
      exitCode = Main.run(args);
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    return new Result(exitCode, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
  }
}
