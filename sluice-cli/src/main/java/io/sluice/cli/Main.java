package io.sluice.cli;

import io.sluice.api.ProductVersion;
import io.sluice.cli.tls.TlsCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} executable: {@code serve} is the default subcommand. */
@Command(name = "sluice", mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    subcommands = {ServeCommand.class, TlsCommand.class, BackupCommand.class,
        RestoreCommand.class, CompactCommand.class, TopCommand.class, WarmUpCommand.class},
    description = "Sluice: a durable job-queue server.")
public final class Main {
  public static final String PRODUCT_VERSION = ProductVersion.VERSION;
  private static final Set<String> TOP_LEVEL_FLAGS = Set.of("-h", "--help", "-V", "--version");

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof OperatorException) {
        cmd.getErr().println("Error: " + e.getMessage());
        return 1;
      }
      if (e instanceof IOException || e instanceof UncheckedIOException) {
        // A file or network problem the operator can see to (a denied permission, a full disk).
        cmd.getErr().println("Error: " + e);
        return 1;
      }
      throw e;
    });
    return cli.execute(withDefaultSubcommand(args));
  }

  /** {@code sluice} alone, or with serve flags only, means {@code sluice serve}. */
  static String[] withDefaultSubcommand(String[] args) {
    if (args.length > 0 && (!args[0].startsWith("-") || TOP_LEVEL_FLAGS.contains(args[0]))) {
      return args;
    }
    List<String> withServe = new ArrayList<>(List.of(args));
    withServe.add(0, "serve");
    return withServe.toArray(String[]::new);
  }

  /** {@code sluice <product version>}, for {@code --version} on any command. */
  public static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"sluice " + PRODUCT_VERSION};
    }
  }
}
