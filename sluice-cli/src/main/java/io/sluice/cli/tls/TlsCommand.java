package io.sluice.cli.tls;

import io.sluice.cli.Main;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code sluice tls}: the certificate helper for a self-managed CA (CLI.md §10.5). Its subcommands
 * inherit the help and version options.
 */
@Command(name = "tls", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    scope = ScopeType.INHERIT,
    description = "Generate a CA, server and client certificates (PEM files).",
    subcommands = {TlsInitCommand.class, TlsCaCommand.class, TlsServerCertCommand.class,
        TlsClientCertCommand.class, TlsPeerCertCommand.class})
public final class TlsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing required subcommand");
  }
}
