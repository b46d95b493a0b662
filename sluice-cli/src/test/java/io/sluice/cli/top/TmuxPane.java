package io.sluice.cli.top;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A program running in a tmux pane on a private tmux server (its own socket, so no other tmux
 * session on the machine is seen or touched): keys go in with send-keys, the screen comes out
 * with capture-pane.
 */
final class TmuxPane implements AutoCloseable {
  private static final String SESSION = "top";
  private final String socket;

  private TmuxPane(String socket) {
    this.socket = socket;
  }

  static boolean available() {
    try {
      Process probe = new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start();
      return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs {@code script} in a new pane of {@code columns} × {@code rows}. */
  static TmuxPane start(Path script, int columns, int rows) throws IOException {
    TmuxPane pane = new TmuxPane("sluice-top-test-" + ProcessHandle.current().pid() + "-"
        + System.nanoTime());
    pane.tmux("new-session", "-d", "-s", SESSION, "-x", Integer.toString(columns), "-y",
        Integer.toString(rows), script.toString());
    return pane;
  }

  /** Sends tmux key names (Tab, Enter, BTab…). */
  void keys(String... names) throws IOException {
    List<String> args = new ArrayList<>(List.of("send-keys", "-t", SESSION));
    args.addAll(List.of(names));
    tmux(args.toArray(String[]::new));
  }

  /** Types {@code text} literally. */
  void type(String text) throws IOException {
    tmux("send-keys", "-t", SESSION, "-l", text);
  }

  String screen() throws IOException {
    return tmux("capture-pane", "-p", "-t", SESSION);
  }

  /** The screen once {@code ready} accepts it; fails with the last screen after the timeout. */
  String await(Predicate<String> ready, String what, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String screen = screen();
    while (!ready.test(screen)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("screen never showed " + what + "; last screen:\n" + screen);
      }
      Thread.sleep(100);
      screen = screen();
    }
    return screen;
  }

  boolean running() throws IOException, InterruptedException {
    Process check = command("has-session", "-t", SESSION).start();
    check.getInputStream().readAllBytes();
    return check.waitFor(10, TimeUnit.SECONDS) && check.exitValue() == 0;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    Process kill = command("kill-server").start();
    kill.getInputStream().readAllBytes();
    kill.waitFor(10, TimeUnit.SECONDS);
  }

  private String tmux(String... args) throws IOException {
    Process process = command(args).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException("tmux " + String.join(" ", args) + " failed: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running tmux", e);
    }
    return output;
  }

  private ProcessBuilder command(String... args) {
    List<String> command = new ArrayList<>(List.of("tmux", "-L", socket, "-f", "/dev/null"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true);
  }
}
