package io.sluice.cli;

import io.sluice.cli.tls.CertifiedKey;
import io.sluice.cli.tls.PemException;
import io.sluice.cli.tls.PemFiles;
import io.sluice.cluster.ClusterConfig;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Mutual TLS of a cluster's replication channel: every node presents its certificate
 * ({@code sluice tls peer-cert}) and accepts only peers whose certificate the CA signed.
 */
final class ClusterTlsOptions {
  @Option(names = "--cluster-tls-cert", defaultValue = "${env:SLUICE_CLUSTER_TLS_CERT}",
      description = "This node's replication certificate (PEM), valid for server and client"
          + " authentication, for its host in --peers. Requires --cluster-tls-key and"
          + " --cluster-tls-ca.")
  Path cert;

  @Option(names = "--cluster-tls-key", defaultValue = "${env:SLUICE_CLUSTER_TLS_KEY}",
      description = "This node's replication private key (PEM).")
  Path key;

  @Option(names = "--cluster-tls-ca", defaultValue = "${env:SLUICE_CLUSTER_TLS_CA}",
      description = "CA bundle (PEM) that signed every node's replication certificate.")
  Path ca;

  /** The replication channel's TLS, or null for plain gRPC; all three files or none. */
  ClusterConfig.ReplicationTls load() {
    if (cert == null && key == null && ca == null) {
      return null;
    }
    if (cert == null || key == null || ca == null) {
      throw new ServeCommand.StartupException("--cluster-tls-cert, --cluster-tls-key and"
          + " --cluster-tls-ca must be provided together");
    }
    CertifiedKey pair = ServeTlsOptions.checkCertificateAndKey(cert, key, "--cluster-tls-cert",
        "--cluster-tls-key");
    List<X509Certificate> authorities;
    try {
      authorities = PemFiles.readCertificates(ca);
    } catch (PemException e) {
      throw new ServeCommand.StartupException(e.getMessage() + " (--cluster-tls-ca)");
    }
    return new ClusterConfig.ReplicationTls(PemFiles.keyManagers(pair)[0],
        PemFiles.trustManagers(authorities)[0]);
  }
}
