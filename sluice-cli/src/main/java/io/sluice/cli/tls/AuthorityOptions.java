package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --ca-cert} and {@code --ca-key}: the CA that signs new certificates. Without them the CA
 * files in the output directory are used, and their absence is an error (CLI.md §10.5).
 */
final class AuthorityOptions {
  @Option(names = "--ca-cert", paramLabel = "<path>",
      description = "CA certificate to sign with (default: ca-cert.pem in the output directory).")
  Path caCert;

  @Option(names = "--ca-key", paramLabel = "<path>",
      description = "Private key of --ca-cert (default: ca-key.pem in the output directory).")
  Path caKey;

  boolean given() {
    if ((caCert == null) != (caKey == null)) {
      throw new OperatorException("--ca-cert and --ca-key must be given together");
    }
    return caCert != null;
  }

  /** The CA named by the options, or else the one in {@code directory}. */
  CertifiedKey load(Path directory) {
    if (given()) {
      return read(caCert, caKey);
    }
    Path certificate = directory.resolve(TlsFileNames.CA_CERT);
    Path key = directory.resolve(TlsFileNames.CA_KEY);
    for (Path file : new Path[] {certificate, key}) {
      if (!Files.exists(file)) {
        throw new OperatorException("no CA in " + directory + ": " + file + " does not exist"
            + " (create one with `sluice tls ca`, or give --ca-cert and --ca-key)");
      }
    }
    return read(certificate, key);
  }

  /** Reads a CA, refusing a certificate that verifiers would not accept as an issuer. */
  static CertifiedKey read(Path certificate, Path key) {
    CertifiedKey authority = PemFiles.readCertifiedKey(certificate, key);
    if (authority.certificate().getBasicConstraints() < 0) {
      throw new OperatorException(certificate + " is not a CA certificate");
    }
    return authority;
  }
}
