package io.sluice.cli.tls;

import java.io.PrintWriter;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every {@code sluice tls} command shares: where files go, and whether to replace. */
final class OutputOptions {
  @Option(names = "--root-dir", paramLabel = "<path>",
      defaultValue = "${env:SLUICE_ROOT_DIR:-./sluice-data}",
      description = "Root directory; files go to <root-dir>/tls unless --out-dir is given"
          + " (default: ${DEFAULT-VALUE}).")
  String rootDir;

  @Option(names = "--out-dir", paramLabel = "<path>",
      description = "Directory for the PEM files (default: <root-dir>/tls).")
  Path outDir;

  @Option(names = "--overwrite", description = "Replace files that already exist.")
  boolean overwrite;

  Path directory() {
    return outDir != null ? outDir : Path.of(rootDir, "tls");
  }

  PemOutput files(PrintWriter out) {
    return new PemOutput(directory(), overwrite, out);
  }
}
