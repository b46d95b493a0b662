package io.sluice.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Start-up checks of the PEM files named by the TLS flags, each error naming file and flag. */
final class TlsFileCheck {
  private TlsFileCheck() {}

  static void certificateAndKey(Path cert, Path key, String certFlag, String keyFlag) {
    readable(cert, certFlag);
    readable(key, keyFlag);
  }

  static void certificates(Path bundle, String flag) {
    readable(bundle, flag);
  }

  private static void readable(Path file, String flag) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new ServeCommand.StartupException("cannot read " + file + " (" + flag + ")");
    }
  }
}
