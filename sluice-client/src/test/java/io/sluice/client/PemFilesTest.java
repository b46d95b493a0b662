package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.Base64;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.util.io.pem.PemWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Reading certificates and private keys from PEM files, with no network: each key format gives
 * back the very key that was written, and every unusable file is refused with a message naming
 * it and its problem.
 */
class PemFilesTest {
  /** Only for writing encrypted keys; handed over, not registered, so the JDK's stay in use. */
  private static final BouncyCastleProvider BOUNCY_CASTLE = new BouncyCastleProvider();
  @TempDir
  static Path dir;
  private static TestPki.Issued ca;
  private static TestPki.Issued ecClient;
  private static KeyPair rsaKeys;

  @BeforeAll
  static void makeKeys() {
    ca = TestPki.authority("test-ca");
    ecClient = TestPki.client(ca, "worker", TestPki.ecKeys());
    rsaKeys = TestPki.rsaKeys();
  }

  private static Path file(String name, String text) {
    return TestPki.write(dir.resolve(name), text);
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  @ParameterizedTest
  @EnumSource(TestPki.KeyFormat.class)
  void eachKeyFormatReadsBackTheKeyWritten(TestPki.KeyFormat format) {
    KeyPair keys = format.rsa() ? rsaKeys : ecClient.keys();
    PrivateKey written = keys.getPrivate();
    Path path = format.write(dir.resolve(format + ".pem"), keys);

    PrivateKey read = PemKeys.read(path);

    assertThat(read.getAlgorithm()).isEqualTo(written.getAlgorithm());
    if (written instanceof RSAPrivateCrtKey rsa) {
      RSAPrivateCrtKey readRsa = (RSAPrivateCrtKey) read;
      assertThat(readRsa.getModulus()).isEqualTo(rsa.getModulus());
      assertThat(readRsa.getPrivateExponent()).isEqualTo(rsa.getPrivateExponent());
      assertThat(readRsa.getPrimeP()).isEqualTo(rsa.getPrimeP());
    } else {
      assertSameEcKey((ECPrivateKey) read, (ECPrivateKey) written);
    }
  }

  @Test
  void aSec1KeyKeepsTheCurveItNames() {
    KeyPair p384 = TestPki.ecKeys("secp384r1");
    Path path = TestPki.writeSec1(dir.resolve("p384.pem"), p384, SECObjectIdentifiers.secp384r1);

    assertSameEcKey((ECPrivateKey) PemKeys.read(path), (ECPrivateKey) p384.getPrivate());
  }

  private static void assertSameEcKey(ECPrivateKey read, ECPrivateKey written) {
    assertThat(read.getS()).isEqualTo(written.getS());
    assertThat(read.getParams().getOrder()).isEqualTo(written.getParams().getOrder());
    assertThat(read.getParams().getGenerator()).isEqualTo(written.getParams().getGenerator());
  }

  @Test
  void readsEveryCertificateOfAChainInFileOrder() {
    Path chain = TestPki.writeCertificates(dir.resolve("chain.pem"),
        ecClient.certificate(), ca.certificate());

    assertThat(PemTls.certificates(chain))
        .containsExactly(ecClient.certificate(), ca.certificate());
  }

  @Test
  void oneFileMayHoldTheCertificateAndTheKeyAmidOtherText() throws Exception {
    Path key = TestPki.writeSec1(dir.resolve("sec1.pem"), ecClient.keys(),
        X9ObjectIdentifiers.prime256v1);
    Path combined = file("combined.pem", "Bag Attributes\n    friendlyName: worker\n"
        + "subject=CN = worker\n"
        + TestPki.pem("CERTIFICATE", ecClient.certificate().getEncoded())
        + "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
        + Files.readString(key));

    assertThat(PemTls.certificates(combined)).containsExactly(ecClient.certificate());
    assertThat(((ECPrivateKey) PemKeys.read(combined)).getS())
        .isEqualTo(((ECPrivateKey) ecClient.keys().getPrivate()).getS());
    assertThat(PemTls.sslContext(null, combined, combined)).isNotNull();
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("missing.pem");
    assertThatThrownBy(() -> PemTls.certificates(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot read " + missing + ": no such file");
    assertThatThrownBy(() -> PemKeys.read(missing))
        .hasMessage("cannot read " + missing + ": no such file");
  }

  @ParameterizedTest
  @CsvSource({"empty.pem,''", "garbage.pem,'not a PEM file, just text'"})
  void aFileWithoutBlocksHoldsNoCertificateAndNoKey(String name, String text) {
    Path path = file(name, text);
    assertThatThrownBy(() -> PemTls.certificates(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(path + " holds no certificate");
    assertThatThrownBy(() -> PemKeys.read(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(path + " holds no private key");
  }

  @Test
  void aBlockThatIsNotBase64IsNamed() {
    Path path = file("bad-base64.pem",
        "-----BEGIN CERTIFICATE-----\nnot*base64!\n-----END CERTIFICATE-----\n");
    assertThatThrownBy(() -> PemTls.certificates(path))
        .hasMessage(path + ": the CERTIFICATE block is not valid base64");
  }

  @Test
  void aBlockWithoutItsEndLineIsNamed() {
    Path path = file("no-end.pem", "-----BEGIN CERTIFICATE-----\n" + base64("abc") + "\n");
    assertThatThrownBy(() -> PemTls.certificates(path))
        .hasMessage(path + ": the CERTIFICATE block has no END line");
  }

  @Test
  void aCertificateBlockThatIsNotX509IsNamedWithItsPosition() {
    Path path = file("not-x509.pem", TestPki.pem("CERTIFICATE", new byte[] {0x30, 0x03, 1, 2, 3}));
    assertThatThrownBy(() -> PemTls.certificates(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(path + ": certificate 1 is not a valid X.509 certificate");
  }

  @ParameterizedTest
  @CsvSource({
      "PRIVATE KEY,     malformed DER",
      "EC PRIVATE KEY,  malformed DER",
      "RSA PRIVATE KEY, not a valid RSA private key"})
  void aKeyBlockHoldingNoValidKeyIsNamed(String label, String problem) {
    Path path = file("garbage-key.pem", TestPki.pem(label, "hello".getBytes()));
    assertThatThrownBy(() -> PemKeys.read(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(path + ": " + problem);
  }

  @Test
  void anEncryptedPkcs8KeyIsRefusedAsUnsupported() throws Exception {
    StringWriter text = new StringWriter();
    try (PemWriter writer = new PemWriter(text)) {
      writer.writeObject(new JcaPKCS8Generator(ecClient.keys().getPrivate(),
          new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
              .setProvider(BOUNCY_CASTLE).setPassword("secret".toCharArray()).build()));
    }
    Path path = file("encrypted-pkcs8.pem", text.toString());
    assertThat(text.toString()).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");

    assertThatThrownBy(() -> PemKeys.read(path))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(path + " holds an encrypted private key; encrypted keys are not"
            + " supported");
  }

  @Test
  void aLegacyEncryptedKeyIsRefusedAsUnsupported() throws Exception {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      writer.writeObject(new JcaMiscPEMGenerator(rsaKeys.getPrivate(),
          new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BOUNCY_CASTLE)
              .build("secret".toCharArray())));
    }
    Path path = file("encrypted-pkcs1.pem", text.toString());
    assertThat(text.toString()).contains("RSA PRIVATE KEY", "Proc-Type: 4,ENCRYPTED");

    assertThatThrownBy(() -> PemKeys.read(path))
        .hasMessageStartingWith(path + " holds an encrypted private key");
  }

  @Test
  void anUnsupportedKeyFormatIsNamed() {
    Path path = file("openssh.pem", TestPki.pem("OPENSSH PRIVATE KEY", "x".getBytes()));
    assertThatThrownBy(() -> PemKeys.read(path))
        .hasMessageStartingWith(path + ": unsupported key format OPENSSH PRIVATE KEY");
  }

  @Test
  void anUnsupportedKeyAlgorithmIsNamedByItsOid() throws Exception {
    PrivateKey ed25519 = KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate();
    Path path = TestPki.writePkcs8(dir.resolve("ed25519.pem"), ed25519);
    assertThatThrownBy(() -> PemKeys.read(path))
        .hasMessage(path + ": unsupported key algorithm 1.3.101.112; supported: RSA, EC");
  }

  @Test
  void aSec1KeyThatNamesNoCurveIsRefused() {
    Path path = TestPki.writeSec1(dir.resolve("no-curve.pem"), ecClient.keys(), null);
    assertThatThrownBy(() -> PemKeys.read(path))
        .hasMessage(path + ": the EC key does not name its curve");
  }

  @Test
  void twoKeysInOneFileAreRefused() throws IOException {
    Path one = TestPki.writePkcs8(dir.resolve("one.pem"), ecClient.keys().getPrivate());
    Path two = file("two.pem", Files.readString(one) + Files.readString(one));
    assertThatThrownBy(() -> PemKeys.read(two))
        .hasMessage(two + " holds 2 private keys; expected one");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefused() {
    Path certificate = TestPki.writeCertificates(dir.resolve("cert.pem"), ecClient.certificate());
    Path otherEc = TestPki.writePkcs8(dir.resolve("other-ec.pem"),
        TestPki.ecKeys().getPrivate());
    Path rsa = TestPki.writePkcs8(dir.resolve("rsa.pem"), rsaKeys.getPrivate());
    for (Path key : new Path[] {otherEc, rsa}) {
      assertThatThrownBy(() -> PemTls.sslContext(null, certificate, key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(key + " is not the private key of the first certificate in " + certificate);
    }
  }

  @Test
  void aCertificateNeedsItsKey() {
    Path certificate = TestPki.writeCertificates(dir.resolve("cert.pem"), ecClient.certificate());
    assertThatThrownBy(() -> PemTls.sslContext(null, certificate, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both its certificate chain and its private key");
  }

  @Test
  void theBuilderTakesEitherAnSslContextOrPemFiles() throws Exception {
    Path caPem = TestPki.writeCertificates(dir.resolve("ca.pem"), ca.certificate());
    SluiceClient.Builder both = SluiceClient.builder("https://localhost:7890")
        .sslContext(SSLContext.getDefault())
        .trustedCertificates(caPem);
    assertThatThrownBy(both::build)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not both");
  }

  @Test
  void theBuilderReportsAnUnusablePemFileAtBuild() {
    Path missing = dir.resolve("no-ca.pem");
    SluiceClient.Builder builder =
        SluiceClient.builder("https://localhost:7890").trustedCertificates(missing);
    assertThatThrownBy(builder::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot read " + missing + ": no such file");
  }
}
