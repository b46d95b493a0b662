package io.sluice.cli;

import io.sluice.cli.top.TopApp;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice top}: the full-screen live view of a running server (CLI.md §10.4), fed by the
 * admin listener's {@code GET /events}.
 */
@Command(name = "top", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Live full-screen view of a running server's jobs and budgets.")
final class TopCommand implements Callable<Integer> {
  static final long MIN_REFRESH_MS = 100;
  static final long MAX_REFRESH_MS = 60_000;
  /** JLine reports terminal trouble through java.util.logging, which would print over the UI. */
  private static final Logger JLINE_LOG = Logger.getLogger("org.jline");

  @Mixin AdminClientOptions admin;

  @Option(names = {"-r", "--refresh-rate"}, paramLabel = "<ms>", defaultValue = "500",
      description = "How often the lists and totals refresh, in milliseconds"
          + " (default: ${DEFAULT-VALUE}).")
  long refreshMs;

  @Override
  public Integer call() throws IOException, InterruptedException {
    if (refreshMs < MIN_REFRESH_MS || refreshMs > MAX_REFRESH_MS) {
      throw new OperatorException("--refresh-rate must be from " + MIN_REFRESH_MS + " to "
          + MAX_REFRESH_MS + " ms");
    }
    URI base = admin.baseUrl();
    admin.sslContext(); // checks the TLS options before anything else
    if (System.console() == null) {
      throw new OperatorException("sluice top needs a terminal: run it with its input and output"
          + " on a tty");
    }
    JLINE_LOG.setLevel(Level.OFF);
    try {
      new TopApp(base.toString(), Main.PRODUCT_VERSION, refreshMs).run(admin.httpClient(), base);
    } catch (CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new OperatorException("cannot reach " + base + ": "
          + AdminClientOptions.reason(cause));
    }
    return 0;
  }
}
