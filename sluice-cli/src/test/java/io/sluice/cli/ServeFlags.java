package io.sluice.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** A {@code serve} command line parsed as the CLI would, rooted in a test's directory. */
final class ServeFlags {
  private ServeFlags() {}

  /** {@code serve --root-dir <root> <flags>}, parsed; its settings are checked when read. */
  static ServeCommand parsed(Path root, String... flags) {
    ServeCommand command = new ServeCommand();
    List<String> args = new ArrayList<>(List.of("--root-dir", root.toString()));
    args.addAll(List.of(flags));
    new CommandLine(command).parseArgs(args.toArray(String[]::new));
    return command;
  }
}
