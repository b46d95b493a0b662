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
import org.bouncycastle.asn1.x509.Extension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tls ca}: a self-signed ECDSA P-256 CA that is never silently replaced. */
class TlsCaCommandTest {
  @TempDir Path dir;

  @Test
  void writesASelfSignedP256CaAndPrintsEachFile() throws Exception {
    CliRunner.Result result = sluice("tls", "ca", "--out-dir", dir.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).isEqualTo("wrote: " + dir.resolve("ca-cert.pem") + "\n"
        + "wrote: " + dir.resolve("ca-key.pem") + "\n");
    X509Certificate ca = certificate(dir.resolve("ca-cert.pem"));
    assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=Sluice CA");
    assertThat(ca.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    ca.verify(ca.getPublicKey());
    assertThat(GeneratedFiles.isP256(ca.getPublicKey())).isTrue();
    assertThat(GeneratedFiles.isP256(pkcs8Key(dir.resolve("ca-key.pem")))).isTrue();
    assertThat(GeneratedFiles.belongTogether(pkcs8Key(dir.resolve("ca-key.pem")), ca)).isTrue();
    assertThat(ca.getSerialNumber()).isPositive();
  }

  @Test
  void marksTheCertificateAsACriticalCaThatSignsCertificatesAndCrls() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());

    X509Certificate ca = certificate(dir.resolve("ca-cert.pem"));
    assertThat(ca.getBasicConstraints()).isNotNegative();
    assertThat(ca.getCriticalExtensionOIDs())
        .contains(Extension.basicConstraints.getId(), Extension.keyUsage.getId());
    boolean[] keyUsage = ca.getKeyUsage();
    assertThat(keyUsage[5]).as("keyCertSign").isTrue();
    assertThat(keyUsage[6]).as("cRLSign").isTrue();
    assertThat(keyUsage[0]).as("digitalSignature").isFalse();
    assertThat(ca.getExtensionValue(Extension.subjectKeyIdentifier.getId())).isNotNull();
  }

  @Test
  void isValidForTenYearsByDefaultAndForDaysWhenGiven() throws Exception {
    Path custom = dir.resolve("custom");
    Instant now = Instant.now();
    sluice("tls", "ca", "--out-dir", dir.toString());
    sluice("tls", "ca", "--out-dir", custom.toString(), "--days", "30", "--cn", "Acme Root");

    X509Certificate standard = certificate(dir.resolve("ca-cert.pem"));
    assertThat(standard.getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(3650)), within(1, ChronoUnit.MINUTES));
    assertThat(standard.getNotBefore().toInstant()).isBefore(now);
    X509Certificate shortLived = certificate(custom.resolve("ca-cert.pem"));
    assertThat(shortLived.getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(30)), within(1, ChronoUnit.MINUTES));
    assertThat(shortLived.getSubjectX500Principal().getName()).isEqualTo("CN=Acme Root");
  }

  @Test
  void writesTheKeyForItsOwnerOnly() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());

    assertThat(PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.resolve("ca-key.pem")))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.resolve("ca-cert.pem")))).isEqualTo("rw-r--r--");
  }

  @Test
  void keepsAnExistingCaAndSaysSo() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());
    byte[] certificate = Files.readAllBytes(dir.resolve("ca-cert.pem"));
    byte[] key = Files.readAllBytes(dir.resolve("ca-key.pem"));

    CliRunner.Result again = sluice("tls", "ca", "--out-dir", dir.toString());

    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).isEqualTo(
        "skip: " + dir.resolve("ca-cert.pem") + " (already exists)\n"
        + "skip: " + dir.resolve("ca-key.pem") + " (already exists)\n");
    assertThat(dir.resolve("ca-cert.pem")).hasBinaryContent(certificate);
    assertThat(dir.resolve("ca-key.pem")).hasBinaryContent(key);
  }

  @Test
  void keepsAHalfPairRatherThanWritingAKeyBesideAForeignCertificate() throws Exception {
    Files.writeString(dir.resolve("ca-cert.pem"), "mine");

    CliRunner.Result result = sluice("tls", "ca", "--out-dir", dir.toString());

    assertThat(result.out()).isEqualTo(
        "skip: " + dir.resolve("ca-cert.pem") + " (already exists)\n"
        + "skip: " + dir.resolve("ca-key.pem") + " (" + dir.resolve("ca-cert.pem")
        + " already exists)\n");
    assertThat(dir.resolve("ca-key.pem")).doesNotExist();
    assertThat(dir.resolve("ca-cert.pem")).hasContent("mine");
  }

  @Test
  void replacesAnExistingCaWithOverwrite() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString());
    X509Certificate first = certificate(dir.resolve("ca-cert.pem"));

    CliRunner.Result again = sluice("tls", "ca", "--out-dir", dir.toString(), "--overwrite");

    assertThat(again.out()).contains("wrote: " + dir.resolve("ca-cert.pem"));
    X509Certificate second = certificate(dir.resolve("ca-cert.pem"));
    assertThat(second.getPublicKey()).isNotEqualTo(first.getPublicKey());
    assertThat(GeneratedFiles.belongTogether(pkcs8Key(dir.resolve("ca-key.pem")), second))
        .isTrue();
    assertThat(PosixFilePermissions.toString(
        Files.getPosixFilePermissions(dir.resolve("ca-key.pem")))).isEqualTo("rw-------");
  }

  @Test
  void writesUnderTheRootDirectoryByDefault() {
    CliRunner.Result result = sluice("tls", "ca", "--root-dir", dir.toString());

    assertThat(result.exitCode()).isZero();
    assertThat(dir.resolve("tls").resolve("ca-cert.pem")).exists();
    assertThat(dir.resolve("tls").resolve("ca-key.pem")).exists();
  }

  @Test
  void refusesANonPositiveOrNonNumericDayCount() {
    for (String bad : new String[] {"0", "-5", "ten", "36501"}) {
      CliRunner.Result result = sluice("tls", "ca", "--out-dir", dir.toString(), "--days", bad);

      assertThat(result.exitCode()).isEqualTo(1);
      assertThat(result.err()).startsWith("Error: invalid value for --days: '" + bad + "'");
    }
    assertThat(dir).isEmptyDirectory();
  }
}
