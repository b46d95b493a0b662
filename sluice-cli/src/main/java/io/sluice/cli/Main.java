package io.sluice.cli;

import io.sluice.api.ProductVersion;
import io.sluice.cli.tls.TlsCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} executable: {@code serve} is the default subcommand. */
@Command(name = "sluice", mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Sluice: a durable job-queue server.")
public final class Main {
  public static final String PRODUCT_VERSION = ProductVersion.VERSION;
  private static final Set<String> TOP_LEVEL_FLAGS = Set.of("-h", "--help", "-V", "--version");
  /** The subcommands by name, in the order the help lists them. */
  static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

  /** Classes, not constructors: a method reference is a lambda spun up at its first use. */
  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> all = new LinkedHashMap<>();
    all.put("serve", ServeCommand.class);
    all.put("tls", TlsCommand.class);
    all.put("backup", BackupCommand.class);
    all.put("restore", RestoreCommand.class);
    all.put("compact", CompactCommand.class);
    all.put("top", TopCommand.class);
    all.put("warm-up", WarmUpCommand.class);
    return all;
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  static int run(String... args) {
    String[] effective = withDefaultSubcommand(args);
    CommandLine cli = new CommandLine(new Main());
    // Only the subcommand named, when one is: picocli reads every command's annotations when it
    // is added, which took a tenth of a second of each start for commands that do not run.
    Class<?> named = effective.length > 0 ? SUBCOMMANDS.get(effective[0]) : null;
    if (named != null) {
      cli.addSubcommand(named);
    } else {
      for (Class<?> command : SUBCOMMANDS.values()) {
        cli.addSubcommand(command);
      }
    }
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
    return cli.execute(effective);
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
