package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static io.sluice.cli.tls.GeneratedFiles.certificate;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.sluice.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tls init}: a CA (new or reused), a server certificate and client certificates. */
class TlsInitCommandTest {
  @TempDir Path dir;

  @Test
  void writesACaAServerCertificateAndEachClientCertificate() throws Exception {
    Instant now = Instant.now();

    CliRunner.Result result = sluice("tls", "init", "--out-dir", dir.toString(),
        "--san", "localhost", "--san", "127.0.0.1", "--client", "alice", "--client", "bob");

    assertThat(result.exitCode()).isZero();
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).isEqualTo(String.join("", wrote("ca-cert.pem"), wrote("ca-key.pem"),
        wrote("server-cert.pem"), wrote("server-key.pem"), wrote("client-alice-cert.pem"),
        wrote("client-alice-key.pem"), wrote("client-bob-cert.pem"),
        wrote("client-bob-key.pem")));
    X509Certificate ca = certificate(dir.resolve("ca-cert.pem"));
    assertThat(ca.getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(3650)), within(1, ChronoUnit.MINUTES));
    X509Certificate server = certificate(dir.resolve("server-cert.pem"));
    server.verify(ca.getPublicKey());
    assertThat(server.getSubjectX500Principal().getName()).isEqualTo("CN=Sluice Server");
    assertThat(GeneratedFiles.altNames(server)).containsExactly("DNS:localhost", "IP:127.0.0.1");
    assertThat(server.getExtendedKeyUsage()).containsExactly(KeyPurposeId.id_kp_serverAuth.getId());
    assertThat(server.getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(365)), within(1, ChronoUnit.MINUTES));
    for (String name : new String[] {"alice", "bob"}) {
      X509Certificate client = certificate(dir.resolve("client-" + name + "-cert.pem"));
      client.verify(ca.getPublicKey());
      assertThat(client.getSubjectX500Principal().getName()).isEqualTo("CN=" + name);
      assertThat(client.getExtendedKeyUsage())
          .containsExactly(KeyPurposeId.id_kp_clientAuth.getId());
    }
  }

  @Test
  void warnsAboutAKeptCertificateThatAnotherCaSigned() throws Exception {
    sluice("tls", "init", "--out-dir", dir.toString(), "--client", "alice");
    Files.delete(dir.resolve("ca-cert.pem"));
    Files.delete(dir.resolve("ca-key.pem"));

    CliRunner.Result again = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "alice");

    assertThat(again.exitCode()).isZero();
    assertThat(again.out())
        .contains("warning: " + dir.resolve("server-cert.pem") + " is not signed by this CA")
        .contains("warning: " + dir.resolve("client-alice-cert.pem")
            + " is not signed by this CA");
  }

  @Test
  void keptCertificatesOfTheReusedCaRaiseNoWarning() throws Exception {
    sluice("tls", "init", "--out-dir", dir.toString(), "--client", "alice");

    CliRunner.Result again = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "alice");

    assertThat(again.out()).doesNotContain("warning");
  }

  @Test
  void takesItsValiditiesAndCaNameFromOptions() throws Exception {
    Instant now = Instant.now();

    sluice("tls", "init", "--root-dir", dir.toString(), "--days", "10", "--ca-days", "100",
        "--cn", "Team CA", "--client", "w");

    Path tls = dir.resolve("tls");
    X509Certificate ca = certificate(tls.resolve("ca-cert.pem"));
    assertThat(ca.getSubjectX500Principal().getName()).isEqualTo("CN=Team CA");
    assertThat(ca.getNotAfter().toInstant())
        .isCloseTo(now.plus(Duration.ofDays(100)), within(1, ChronoUnit.MINUTES));
    for (String file : new String[] {"server-cert.pem", "client-w-cert.pem"}) {
      assertThat(certificate(tls.resolve(file)).getNotAfter().toInstant()).as(file)
          .isCloseTo(now.plus(Duration.ofDays(10)), within(1, ChronoUnit.MINUTES));
    }
  }

  @Test
  void reusesTheCaAlreadyInTheOutputDirectory() throws Exception {
    sluice("tls", "ca", "--out-dir", dir.toString(), "--cn", "Existing CA");
    byte[] caBefore = Files.readAllBytes(dir.resolve("ca-cert.pem"));

    CliRunner.Result result = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "alice");

    assertThat(result.exitCode()).isZero();
    assertThat(result.out()).isEqualTo(
        "CA already exists, reusing: " + dir.resolve("ca-cert.pem") + "\n"
        + wrote("server-cert.pem") + wrote("server-key.pem")
        + wrote("client-alice-cert.pem") + wrote("client-alice-key.pem"));
    assertThat(dir.resolve("ca-cert.pem")).hasBinaryContent(caBefore);
    X509Certificate ca = certificate(dir.resolve("ca-cert.pem"));
    certificate(dir.resolve("server-cert.pem")).verify(ca.getPublicKey());
    certificate(dir.resolve("client-alice-cert.pem")).verify(ca.getPublicKey());
  }

  @Test
  void skipsEverythingThatExistsOnASecondRunAndAddsWhatIsNew() throws Exception {
    sluice("tls", "init", "--out-dir", dir.toString(), "--client", "alice");
    byte[] serverBefore = Files.readAllBytes(dir.resolve("server-cert.pem"));

    CliRunner.Result again = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "alice", "--client", "bob");

    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).isEqualTo(
        "CA already exists, reusing: " + dir.resolve("ca-cert.pem") + "\n"
        + skipped("server-cert.pem") + skipped("server-key.pem")
        + skipped("client-alice-cert.pem") + skipped("client-alice-key.pem")
        + wrote("client-bob-cert.pem") + wrote("client-bob-key.pem"));
    assertThat(dir.resolve("server-cert.pem")).hasBinaryContent(serverBefore);
  }

  @Test
  void overwriteReplacesTheLeafCertificatesButKeepsTheCa() throws Exception {
    sluice("tls", "init", "--out-dir", dir.toString(), "--client", "alice");
    byte[] caBefore = Files.readAllBytes(dir.resolve("ca-cert.pem"));
    byte[] serverBefore = Files.readAllBytes(dir.resolve("server-cert.pem"));

    CliRunner.Result again = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "alice", "--san", "queue.internal", "--overwrite");

    assertThat(again.out()).isEqualTo(
        "CA already exists, reusing: " + dir.resolve("ca-cert.pem") + "\n"
        + wrote("server-cert.pem") + wrote("server-key.pem")
        + wrote("client-alice-cert.pem") + wrote("client-alice-key.pem"));
    assertThat(dir.resolve("ca-cert.pem")).hasBinaryContent(caBefore);
    assertThat(Files.readAllBytes(dir.resolve("server-cert.pem"))).isNotEqualTo(serverBefore);
    X509Certificate server = certificate(dir.resolve("server-cert.pem"));
    server.verify(certificate(dir.resolve("ca-cert.pem")).getPublicKey());
    assertThat(GeneratedFiles.altNames(server)).containsExactly("DNS:queue.internal");
  }

  @Test
  void signsWithACaGivenByOptionWithoutCopyingIt() throws Exception {
    Path caDir = dir.resolve("ca");
    sluice("tls", "ca", "--out-dir", caDir.toString());
    Path out = dir.resolve("out");

    CliRunner.Result result = sluice("tls", "init", "--out-dir", out.toString(),
        "--ca-cert", caDir.resolve("ca-cert.pem").toString(),
        "--ca-key", caDir.resolve("ca-key.pem").toString());

    assertThat(result.out())
        .isEqualTo(wrote(out, "server-cert.pem") + wrote(out, "server-key.pem"));
    assertThat(out.resolve("ca-cert.pem")).doesNotExist();
    certificate(out.resolve("server-cert.pem"))
        .verify(certificate(caDir.resolve("ca-cert.pem")).getPublicKey());
  }

  @Test
  void refusesAHalfCaRatherThanReplacingIt() throws Exception {
    Files.writeString(dir.resolve("ca-key.pem"), "kept");

    CliRunner.Result result = sluice("tls", "init", "--out-dir", dir.toString());

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: " + dir.resolve("ca-key.pem") + " exists but "
        + dir.resolve("ca-cert.pem")
        + " does not (replace both with `sluice tls ca --overwrite`)\n");
    assertThat(dir.resolve("ca-key.pem")).hasContent("kept");
    assertThat(dir.resolve("server-cert.pem")).doesNotExist();
  }

  @Test
  void refusesABadClientNameBeforeWritingAnything() {
    CliRunner.Result result = sluice("tls", "init", "--out-dir", dir.toString(),
        "--client", "ok", "--client", "../escape");

    assertThat(result.exitCode()).isEqualTo(1);
    assertThat(result.err()).startsWith("Error: invalid value for --client: '../escape'");
    assertThat(dir).isEmptyDirectory();
  }

  private String wrote(String file) {
    return wrote(dir, file);
  }

  private static String wrote(Path directory, String file) {
    return "wrote: " + directory.resolve(file) + "\n";
  }

  private String skipped(String file) {
    return "skip: " + dir.resolve(file) + " (already exists)\n";
  }
}
