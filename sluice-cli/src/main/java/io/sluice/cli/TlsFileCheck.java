package io.sluice.cli;

import io.sluice.cli.tls.CertifiedKey;
import io.sluice.cli.tls.PemException;
import io.sluice.cli.tls.PemFiles;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;

/**
 * Start-up checks of the PEM files named by the TLS flags (CLI.md §2.2), before anything is
 * bound: each file readable and holding what its flag names, the key belonging to the first
 * certificate, and that certificate not expired (no client could connect). Errors name the file
 * and the flag.
 */
final class TlsFileCheck {
  private TlsFileCheck() {}

  static void certificateAndKey(Path cert, Path key, String certFlag, String keyFlag,
      Instant now) {
    CertifiedKey pair;
    try {
      pair = PemFiles.readCertifiedKey(cert, key);
    } catch (PemException e) {
      throw new ServeCommand.StartupException(e.getMessage() + " (" + certFlag + ", " + keyFlag
          + ")");
    }
    X509Certificate leaf = pair.certificate();
    if (leaf.getNotAfter().toInstant().isBefore(now)) {
      throw new ServeCommand.StartupException("the certificate in " + cert + " expired on "
          + leaf.getNotAfter().toInstant() + " (" + certFlag + ")");
    }
  }

  static void certificates(Path bundle, String flag) {
    try {
      PemFiles.readCertificates(bundle);
    } catch (PemException e) {
      throw new ServeCommand.StartupException(e.getMessage() + " (" + flag + ")");
    }
  }
}
