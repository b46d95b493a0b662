package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static io.sluice.cli.tls.GeneratedFiles.certificate;
import static io.sluice.cli.tls.GeneratedFiles.pkcs8Key;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.CliRunner;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tls peer-cert}: a cluster node's certificate, to serve peers and connect. */
class TlsPeerCertCommandTest {
  @TempDir Path dir;

  @Test
  void signsACertificateForServerAndClientAuthenticationForTheNodesHost() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());
    X509Certificate ca = certificate(dir.resolve("ca-cert.pem"));

    CliRunner.Result result = sluice("tls", "peer-cert", "--out-dir", dir.toString(),
        "--name", "n2", "--san", "10.0.0.2", "--san", "node-2.internal");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out()).isEqualTo("wrote: " + dir.resolve("peer-n2-cert.pem") + "\n"
        + "wrote: " + dir.resolve("peer-n2-key.pem") + "\n");
    X509Certificate peer = certificate(dir.resolve("peer-n2-cert.pem"));
    peer.verify(ca.getPublicKey());
    assertThat(peer.getSubjectX500Principal().getName()).isEqualTo("CN=n2");
    assertThat(peer.getExtendedKeyUsage()).containsExactly(
        KeyPurposeId.id_kp_serverAuth.getId(), KeyPurposeId.id_kp_clientAuth.getId());
    assertThat(GeneratedFiles.altNames(peer))
        .containsExactly("IP:10.0.0.2", "DNS:node-2.internal");
    assertThat(GeneratedFiles.belongTogether(pkcs8Key(dir.resolve("peer-n2-key.pem")), peer))
        .isTrue();
  }

  @Test
  void aPeerCertificateNeedsTheHostsItIsReachedAt() {
    sluice("tls", "ca", "--out-dir", dir.toString());

    CliRunner.Result result = sluice("tls", "peer-cert", "--out-dir", dir.toString(),
        "--name", "n1");

    assertThat(result.exitCode()).isNotZero();
    assertThat(result.err()).contains("--san");
  }
}
