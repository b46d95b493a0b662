package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.startup.CliProcess;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PEM checks of CLI.md §2.2 on the real process: an unreadable, empty or wrong file, a key
 * that is not the certificate's, or an expired certificate is {@code Error: ...} naming the file
 * and its flag, exit 1, before anything is bound or opened.
 */
class TlsStartupValidationTest {
  @TempDir Path dir;
  private TlsFiles files;
  private TlsFiles other;

  @BeforeEach
  void writeCertificates() throws Exception {
    files = TlsFiles.init(dir.resolve("tls"), "worker");
    other = TlsFiles.init(dir.resolve("other"));
  }

  private CliProcess serve(String... flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("serve", "--root-dir",
        dir.resolve("root").toString(), "--warm-up-jobs", "0", "--port", "0", "--admin-port",
        "0"));
    args.addAll(List.of(flags));
    return CliProcess.of(dir, args.toArray(String[]::new));
  }

  private void assertRefused(CliProcess run, String... fragments) {
    assertThat(run.exitStatus()).as(run.output()).isEqualTo(1);
    assertThat(run.output()).contains("Error: ").contains(fragments);
    assertThat(run.output()).doesNotContain("listening on");
    assertThat(dir.resolve("root").resolve("data")).doesNotExist();
  }

  @Test
  void aMissingCertificateFileIsNamed() throws Exception {
    Path missing = dir.resolve("nope.pem");

    assertRefused(serve("--tls-cert", missing.toString(), "--tls-key",
        files.serverKey().toString()), "cannot read " + missing, "(--tls-cert, --tls-key)");
  }

  @Test
  void aCertificateFileHoldingAKeyIsRefused() throws Exception {
    assertRefused(serve("--tls-cert", files.serverKey().toString(), "--tls-key",
        files.serverKey().toString()), files.serverKey() + " holds no certificate");
  }

  @Test
  void anEmptyKeyFileIsRefused() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty.pem"), "");

    assertRefused(serve("--tls-cert", files.serverCert().toString(), "--tls-key",
        empty.toString()), empty + " holds no private key");
  }

  @Test
  void aKeyOfAnotherCertificateIsRefused() throws Exception {
    assertRefused(serve("--tls-cert", files.serverCert().toString(), "--tls-key",
        other.serverKey().toString()), "does not belong to the certificate in "
        + files.serverCert());
  }

  @Test
  void aGarbageClientCaIsRefusedByItsFlag() throws Exception {
    Path garbage = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\nxx\n");

    assertRefused(serve("--tls-cert", files.serverCert().toString(), "--tls-key",
        files.serverKey().toString(), "--tls-client-ca", garbage.toString()),
        garbage.toString(), "(--tls-client-ca)");
  }

  @Test
  void theAdminFilesAreCheckedToo() throws Exception {
    assertRefused(serve("--admin-tls-cert", files.serverCert().toString(), "--admin-tls-key",
        other.serverKey().toString()), "(--admin-tls-cert, --admin-tls-key)");
  }

  @Test
  void anExpiredCertificateIsRefused() throws Exception {
    CertificateIssuer issuer = new CertificateIssuer();
    Instant longAgo = Instant.now().minus(Duration.ofDays(400));
    CertifiedKey authority = issuer.authority("Old CA", 3650, longAgo);
    CertifiedKey expired = issuer.client(authority, "old", 1, longAgo);
    Path cert = write("expired-cert.pem", expired.certificate());
    Path key = write("expired-key.pem", new JcaPKCS8Generator(expired.privateKey(), null));

    assertRefused(serve("--tls-cert", cert.toString(), "--tls-key", key.toString()),
        "the certificate in " + cert + " expired on ");
  }

  private Path write(String name, Object pemObject) throws Exception {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
      pem.writeObject(pemObject);
    }
    return Files.writeString(dir.resolve(name), text.toString());
  }
}
