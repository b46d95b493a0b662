package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static io.sluice.cli.tls.GeneratedFiles.certificate;
import static io.sluice.cli.tls.GeneratedFiles.pkcs8Key;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tls client-cert}: a clientAuth certificate named after the client. */
class TlsClientCertCommandTest {
  @TempDir Path dir;
  private X509Certificate ca;

  @BeforeEach
  void createCa() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());
    ca = certificate(dir.resolve("ca-cert.pem"));
  }

  @Test
  void signsAClientCertificateWhoseCommonNameIsTheName() throws Exception {
    CliRunner.Result result = sluice("tls", "client-cert", "--out-dir", dir.toString(),
        "--name", "billing-worker");

    assertThat(result.exitCode()).isZero();
    Path certFile = dir.resolve("client-billing-worker-cert.pem");
    Path keyFile = dir.resolve("client-billing-worker-key.pem");
    assertThat(result.out()).isEqualTo("wrote: " + certFile + "\n" + "wrote: " + keyFile + "\n");
    X509Certificate client = certificate(certFile);
    assertThat(client.getSubjectX500Principal().getName()).isEqualTo("CN=billing-worker");
    assertThat(client.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    client.verify(ca.getPublicKey());
    assertThat(client.getExtendedKeyUsage()).containsExactly(KeyPurposeId.id_kp_clientAuth.getId());
    assertThat(client.getBasicConstraints()).isEqualTo(-1);
    assertThat(GeneratedFiles.isP256(pkcs8Key(keyFile))).isTrue();
    assertThat(GeneratedFiles.belongTogether(pkcs8Key(keyFile), client)).isTrue();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)))
        .isEqualTo("rw-------");
  }

  @Test
  void isValidForTheGivenDays() throws Exception {
    Instant now = Instant.now();

    sluice("tls", "client-cert", "--out-dir", dir.toString(), "--name", "a", "--days", "90");

    assertThat(certificate(dir.resolve("client-a-cert.pem")).getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(90)), within(1, ChronoUnit.MINUTES));
  }

  @Test
  void refusesANameThatCouldLeaveTheDirectory() throws Exception {
    for (String bad : new String[] {"../evil", "a/b", "..", "x..y", ".hidden", "a\\b", ""}) {
      CliRunner.Result result = sluice("tls", "client-cert", "--out-dir", dir.toString(),
          "--name", bad);

      assertThat(result.exitCode()).as(bad).isEqualTo(1);
      assertThat(result.err()).as(bad)
          .startsWith("Error: invalid value for --name: '" + bad + "'");
    }
    assertThat(dir.getParent().resolve("client-evil-cert.pem")).doesNotExist();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(file -> file.getFileName().toString()))
          .containsExactlyInAnyOrder("ca-cert.pem", "ca-key.pem");
    }
  }

  @Test
  void needsAName() {
    CliRunner.Result result = sluice("tls", "client-cert", "--out-dir", dir.toString());

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Missing required option: '--name=<name>'");
  }

  @Test
  void failsWithoutACa() {
    Path empty = dir.resolve("empty");

    CliRunner.Result result = sluice("tls", "client-cert", "--out-dir", empty.toString(),
        "--name", "a");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).startsWith("Error: no CA in " + empty + ": ");
    assertThat(empty).doesNotExist();
  }

  @Test
  void keepsAnExistingClientCertificate() throws Exception {
    sluice("tls", "client-cert", "--out-dir", dir.toString(), "--name", "a");
    byte[] first = Files.readAllBytes(dir.resolve("client-a-cert.pem"));

    CliRunner.Result again = sluice("tls", "client-cert", "--out-dir", dir.toString(),
        "--name", "a");

    assertThat(again.out()).isEqualTo(
        "skip: " + dir.resolve("client-a-cert.pem") + " (already exists)\n"
        + "skip: " + dir.resolve("client-a-key.pem") + " (already exists)\n");
    assertThat(dir.resolve("client-a-cert.pem")).hasBinaryContent(first);
  }
}
