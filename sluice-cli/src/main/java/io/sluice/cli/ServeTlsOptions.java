package io.sluice.cli;

import io.sluice.api.TlsSettings;
import io.sluice.cli.tls.CertifiedKey;
import io.sluice.cli.tls.PemException;
import io.sluice.cli.tls.PemFiles;
import java.nio.file.Path;
import java.time.Instant;
import picocli.CommandLine.Option;

/**
 * The TLS flags of {@code sluice serve} (CLI.md §2.1), one set per listener, and their start-up
 * checks (§2.2): pairs given together, a client CA only with a certificate and key, every file
 * readable and holding what its flag names, and each key matching its certificate.
 */
final class ServeTlsOptions {
  @Option(names = "--tls-cert", defaultValue = "${env:SLUICE_TLS_CERT}",
      description = "Primary API certificate chain (PEM). Requires --tls-key.")
  Path cert;

  @Option(names = "--tls-key", defaultValue = "${env:SLUICE_TLS_KEY}",
      description = "Primary API private key (PEM). Requires --tls-cert.")
  Path key;

  @Option(names = "--tls-client-ca", defaultValue = "${env:SLUICE_TLS_CLIENT_CA}",
      description = "CA bundle (PEM): clients must present a certificate signed by it (mutual TLS).")
  Path clientCa;

  @Option(names = "--admin-tls-cert", defaultValue = "${env:SLUICE_ADMIN_TLS_CERT}",
      description = "Admin API certificate chain (PEM). Requires --admin-tls-key.")
  Path adminCert;

  @Option(names = "--admin-tls-key", defaultValue = "${env:SLUICE_ADMIN_TLS_KEY}",
      description = "Admin API private key (PEM).")
  Path adminKey;

  @Option(names = "--admin-tls-client-ca", defaultValue = "${env:SLUICE_ADMIN_TLS_CLIENT_CA}",
      description = "Mutual TLS CA bundle (PEM) for the admin API.")
  Path adminClientCa;

  /** The primary listener's TLS, or null for plain HTTP. */
  TlsSettings primary() {
    return settings(cert, key, clientCa, "--tls");
  }

  /** The admin listener's TLS, or null for plain HTTP. */
  TlsSettings admin() {
    return settings(adminCert, adminKey, adminClientCa, "--admin-tls");
  }

  private static TlsSettings settings(Path cert, Path key, Path clientCa, String prefix) {
    if ((cert == null) != (key == null)) {
      throw new ServeCommand.StartupException(
          prefix + "-cert and " + prefix + "-key must be provided together");
    }
    if (clientCa != null && cert == null) {
      throw new ServeCommand.StartupException(
          prefix + "-client-ca requires " + prefix + "-cert and " + prefix + "-key");
    }
    if (cert == null) {
      return null;
    }
    checkCertificateAndKey(cert, key, prefix + "-cert", prefix + "-key");
    if (clientCa != null) {
      try {
        PemFiles.readCertificates(clientCa);
      } catch (PemException e) {
        throw new ServeCommand.StartupException(e.getMessage() + " (" + prefix + "-client-ca)");
      }
    }
    return new TlsSettings(cert, key, clientCa);
  }

  /** A readable pair, the key the first certificate's, and that certificate not expired. */
  static CertifiedKey checkCertificateAndKey(Path cert, Path key, String certFlag,
      String keyFlag) {
    CertifiedKey pair;
    try {
      pair = PemFiles.readCertifiedKey(cert, key);
    } catch (PemException e) {
      throw new ServeCommand.StartupException(e.getMessage() + " (" + certFlag + ", " + keyFlag
          + ")");
    }
    Instant notAfter = pair.certificate().getNotAfter().toInstant();
    if (notAfter.isBefore(Instant.now())) {
      // No client could connect: found now rather than by every client later.
      throw new ServeCommand.StartupException("the certificate in " + cert + " expired on "
          + notAfter + " (" + certFlag + ")");
    }
    return pair;
  }
}
