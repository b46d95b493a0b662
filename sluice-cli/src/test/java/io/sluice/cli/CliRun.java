package io.sluice.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Runs the {@code sluice} command line in this JVM, as {@link Main#main} would without exiting,
 * and captures what it prints. Swaps {@link System#out} and {@link System#err} meanwhile, so
 * one run at a time.
 */
public final class CliRun {
  /** The exit status and the text printed on stdout and stderr. */
  public record Result(int status, String out, String err) {
    private static final Pattern LOG_LINE = Pattern.compile("(?m)^\\d{4}-\\d\\d-\\d\\dT.*\n");

    /** Stdout without the log lines of a server running in this JVM meanwhile. */
    public String printed() {
      return LOG_LINE.matcher(out).replaceAll("");
    }

    @Override
    public String toString() {
      return "status " + status + "\nstdout:\n" + out + "stderr:\n" + err;
    }
  }

  private CliRun() {}

  public static synchronized Result run(String... args) {
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int status = Main.run(args);
      System.out.flush();
      System.err.flush();
      return new Result(status, out.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
  }
}
