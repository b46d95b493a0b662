package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static io.sluice.cli.tls.GeneratedFiles.certificate;
import static io.sluice.cli.tls.GeneratedFiles.pkcs8Key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tls server-cert}: a serverAuth certificate for the given names, signed by a CA. */
class TlsServerCertCommandTest {
  @TempDir Path dir;

  private X509Certificate ca() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());
    return certificate(dir.resolve("ca-cert.pem"));
  }

  @Test
  void signsAServerCertificateForLocalhostWithTheCaInTheOutputDirectory() throws Exception {
    X509Certificate ca = ca();

    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", dir.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo("wrote: " + dir.resolve("server-cert.pem") + "\n"
        + "wrote: " + dir.resolve("server-key.pem") + "\n");
    X509Certificate server = certificate(dir.resolve("server-cert.pem"));
    assertThat(server.getSubjectX500Principal().getName()).isEqualTo("CN=Sluice Server");
    assertThat(server.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    server.verify(ca.getPublicKey());
    assertThat(GeneratedFiles.altNames(server)).containsExactly("DNS:localhost");
    assertThat(GeneratedFiles.isP256(server.getPublicKey())).isTrue();
    assertThat(GeneratedFiles.belongTogether(pkcs8Key(dir.resolve("server-key.pem")), server))
        .isTrue();
    assertThat(server.getSerialNumber()).isPositive().isNotEqualTo(ca.getSerialNumber());
  }

  @Test
  void carriesDnsAndIpAddressNamesInTheOrderGiven() throws Exception {
    ca();

    sluice("tls", "server-cert", "--out-dir", dir.toString(), "--san", "queue.example.com",
        "--san", "10.1.2.3", "--san", "::1", "--san", "*.workers.internal,127.0.0.1");

    assertThat(GeneratedFiles.altNames(certificate(dir.resolve("server-cert.pem"))))
        .containsExactly("DNS:queue.example.com", "IP:10.1.2.3", "IP:0:0:0:0:0:0:0:1",
            "DNS:*.workers.internal", "IP:127.0.0.1");
  }

  @Test
  void isALeafForServerAuthenticationOnly() throws Exception {
    X509Certificate ca = ca();

    sluice("tls", "server-cert", "--out-dir", dir.toString());

    X509Certificate server = certificate(dir.resolve("server-cert.pem"));
    assertThat(server.getBasicConstraints()).isEqualTo(-1);
    assertThat(server.getExtensionValue(Extension.basicConstraints.getId())).isNotNull();
    assertThat(server.getExtendedKeyUsage()).containsExactly(KeyPurposeId.id_kp_serverAuth.getId());
    assertThat(server.getKeyUsage()[0]).as("digitalSignature").isTrue();
    assertThat(server.getKeyUsage()[5]).as("keyCertSign").isFalse();
    byte[] authorityKeyId = AuthorityKeyIdentifier.getInstance(JcaX509ExtensionUtils
        .parseExtensionValue(server.getExtensionValue(Extension.authorityKeyIdentifier.getId())))
        .getKeyIdentifierOctets();
    byte[] caKeyId = SubjectKeyIdentifier.getInstance(JcaX509ExtensionUtils
        .parseExtensionValue(ca.getExtensionValue(Extension.subjectKeyIdentifier.getId())))
        .getKeyIdentifier();
    assertThat(authorityKeyId).isEqualTo(caKeyId);
  }

  @Test
  void isValidForAYearByDefaultAndForDaysWhenGiven() throws Exception {
    ca();
    Instant now = Instant.now();

    sluice("tls", "server-cert", "--out-dir", dir.toString());
    assertThat(certificate(dir.resolve("server-cert.pem")).getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(365)), within(1, ChronoUnit.MINUTES));

    sluice("tls", "server-cert", "--out-dir", dir.toString(), "--days", "7", "--overwrite");
    assertThat(certificate(dir.resolve("server-cert.pem")).getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(7)), within(1, ChronoUnit.MINUTES));
  }

  @Test
  void signsWithACaGivenByOption() throws Exception {
    Path caDir = dir.resolve("ca");
    sluice("tls", "ca", "--out-dir", caDir.toString(), "--cn", "Elsewhere CA");
    Path out = dir.resolve("out");

    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", out.toString(),
        "--ca-cert", caDir.resolve("ca-cert.pem").toString(),
        "--ca-key", caDir.resolve("ca-key.pem").toString());

    assertThat(result.exitCode()).isZero();
    X509Certificate server = certificate(out.resolve("server-cert.pem"));
    server.verify(certificate(caDir.resolve("ca-cert.pem")).getPublicKey());
    assertThat(server.getIssuerX500Principal().getName()).isEqualTo("CN=Elsewhere CA");
  }

  @Test
  void failsWithoutACa() {
    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", dir.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: no CA in " + dir + ": " + dir.resolve("ca-cert.pem")
        + " does not exist (create one with `sluice tls ca`, or give --ca-cert and --ca-key)\n");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void failsWhenOnlyOneOfTheCaFilesIsGiven() throws Exception {
    ca();

    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", dir.toString(),
        "--ca-cert", dir.resolve("ca-cert.pem").toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: --ca-cert and --ca-key must be given together\n");
  }

  @Test
  void refusesToSignWithALeafCertificate() throws Exception {
    ca();
    sluice("tls", "server-cert", "--out-dir", dir.toString());
    Path out = dir.resolve("out");

    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", out.toString(),
        "--ca-cert", dir.resolve("server-cert.pem").toString(),
        "--ca-key", dir.resolve("server-key.pem").toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err())
        .isEqualTo("Error: " + dir.resolve("server-cert.pem") + " is not a CA certificate\n");
    assertThat(out).doesNotExist();
  }

  @Test
  void refusesANameThatIsNeitherDnsNorIp() throws Exception {
    ca();

    CliRunner.Result result = sluice("tls", "server-cert", "--out-dir", dir.toString(),
        "--san", "not a host");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: invalid value for --san: 'not a host'"
        + " (expected a DNS name or an IP address)\n");
    assertThat(dir.resolve("server-cert.pem")).doesNotExist();
  }

  @Test
  void keepsAnExistingPairUnlessOverwriting() throws Exception {
    ca();
    sluice("tls", "server-cert", "--out-dir", dir.toString());
    byte[] first = Files.readAllBytes(dir.resolve("server-cert.pem"));

    CliRunner.Result kept = sluice("tls", "server-cert", "--out-dir", dir.toString(),
        "--san", "other.example");
    assertThat(kept.out()).isEqualTo(
        "skip: " + dir.resolve("server-cert.pem") + " (already exists)\n"
        + "skip: " + dir.resolve("server-key.pem") + " (already exists)\n");
    assertThat(dir.resolve("server-cert.pem")).hasBinaryContent(first);

    CliRunner.Result replaced = sluice("tls", "server-cert", "--out-dir", dir.toString(),
        "--san", "other.example", "--overwrite");
    assertThat(replaced.out()).isEqualTo("wrote: " + dir.resolve("server-cert.pem") + "\n"
        + "wrote: " + dir.resolve("server-key.pem") + "\n");
    assertThat(GeneratedFiles.altNames(certificate(dir.resolve("server-cert.pem"))))
        .containsExactly("DNS:other.example");
  }
}
