package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.DERBitString;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link PemFiles}: certificate chains and keys in the PEM forms operators bring, or why not. */
class PemFilesTest {
  @TempDir Path dir;

  private final CertificateIssuer issuer = new CertificateIssuer();
  private final Instant now = Instant.now();

  private CertifiedKey ca() {
    return issuer.authority("Test CA", 1, now);
  }

  private CertifiedKey server(CertifiedKey ca) {
    return issuer.server(ca, "server", SubjectAltNames.parse(List.of("localhost")), 1, now);
  }

  private Path pem(String name, Object... objects) throws IOException {
    StringWriter text = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
      for (Object object : objects) {
        writer.writeObject(object);
      }
    }
    Path file = dir.resolve(name);
    Files.writeString(file, text.toString(), StandardCharsets.US_ASCII);
    return file;
  }

  private Path pkcs8(String name, PrivateKey key) throws IOException {
    return pem(name, new PemObject("PRIVATE KEY", key.getEncoded()));
  }

  @Nested
  class Certificates {
    @Test
    void readsEveryCertificateOfAChainInFileOrder() throws Exception {
      CertifiedKey ca = ca();
      CertifiedKey server = server(ca);
      Path chain = pem("chain.pem", server.certificate(), ca.certificate());

      assertThat(PemFiles.readCertificates(chain))
          .containsExactly(server.certificate(), ca.certificate());
    }

    @Test
    void skipsAKeyInTheSameFile() throws Exception {
      CertifiedKey server = server(ca());
      Path combined = pem("combined.pem", new PemObject("PRIVATE KEY",
          server.privateKey().getEncoded()), server.certificate());

      assertThat(PemFiles.readCertificates(combined)).containsExactly(server.certificate());
    }

    @Test
    void saysWhenAFileHoldsNoCertificate() throws Exception {
      Path empty = Files.createFile(dir.resolve("empty.pem"));
      Path garbage = Files.write(dir.resolve("garbage.pem"), new byte[] {0, (byte) 0xff, 42, 10});
      Path keyOnly = pkcs8("key.pem", ca().privateKey());

      for (Path file : List.of(empty, garbage, keyOnly)) {
        assertThatThrownBy(() -> PemFiles.readCertificates(file))
            .isInstanceOf(PemException.class).hasMessage(file + " holds no certificate");
      }
    }

    @Test
    void saysWhenAFileIsMissing() {
      Path missing = dir.resolve("missing.pem");

      assertThatThrownBy(() -> PemFiles.readCertificates(missing))
          .isInstanceOf(PemException.class).hasMessage("cannot read " + missing + ": no such file");
    }

    @Test
    void saysWhenACertificateBlockIsMalformed() throws Exception {
      Path broken = dir.resolve("broken.pem");
      Files.writeString(broken, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");

      assertThatThrownBy(() -> PemFiles.readCertificates(broken))
          .isInstanceOf(PemException.class).hasMessageStartingWith("cannot read " + broken + ": ");
    }
  }

  @Nested
  class PrivateKeys {
    @Test
    void readsPkcs8() throws Exception {
      PrivateKey key = ca().privateKey();
      Path file = pkcs8("key.pem", key);
      assertThat(Files.readString(file)).startsWith("-----BEGIN PRIVATE KEY-----");

      assertThat(PemFiles.readPrivateKey(file).getEncoded()).isEqualTo(key.getEncoded());
    }

    @Test
    void readsPkcs1Rsa() throws Exception {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      PrivateKey key = generator.generateKeyPair().getPrivate();
      Path file = pem("rsa.pem", key);
      assertThat(Files.readString(file)).startsWith("-----BEGIN RSA PRIVATE KEY-----");

      PrivateKey read = PemFiles.readPrivateKey(file);

      assertThat(read.getAlgorithm()).isEqualTo("RSA");
      assertThat(read.getEncoded()).isEqualTo(key.getEncoded());
    }

    @Test
    void readsSec1EcAfterTheCurveParametersOpensslWritesFirst() throws Exception {
      CertifiedKey ca = ca();
      ECPrivateKey key = (ECPrivateKey) ca.privateKey();
      // Laid out as `openssl ecparam -genkey` writes it: curve, scalar, public point.
      byte[] publicPoint = SubjectPublicKeyInfo.getInstance(
          ca.certificate().getPublicKey().getEncoded()).getPublicKeyData().getBytes();
      byte[] sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, key.getS(),
          new DERBitString(publicPoint), SECObjectIdentifiers.secp256r1).getEncoded();
      Path file = pem("ec.pem",
          new PemObject("EC PARAMETERS", SECObjectIdentifiers.secp256r1.getEncoded()),
          new PemObject("EC PRIVATE KEY", sec1));
      assertThat(Files.readString(file)).contains("-----BEGIN EC PRIVATE KEY-----");

      PrivateKey read = PemFiles.readPrivateKey(file);

      assertThat(read).isInstanceOf(ECPrivateKey.class);
      assertThat(((ECPrivateKey) read).getS()).isEqualTo(key.getS());
      assertThat(GeneratedFiles.isP256(read)).isTrue();
    }

    @Test
    void findsTheKeyAfterACertificateInTheSameFile() throws Exception {
      CertifiedKey ca = ca();
      Path combined = pem("combined.pem", ca.certificate(),
          new PemObject("PRIVATE KEY", ca.privateKey().getEncoded()));

      assertThat(PemFiles.readPrivateKey(combined).getEncoded())
          .isEqualTo(ca.privateKey().getEncoded());
    }

    @Test
    void saysWhenAFileHoldsNoKey() throws Exception {
      Path empty = Files.createFile(dir.resolve("empty.pem"));
      Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a key at all\n");
      Path certificateOnly = pem("cert.pem", ca().certificate());

      for (Path file : List.of(empty, garbage, certificateOnly)) {
        assertThatThrownBy(() -> PemFiles.readPrivateKey(file))
            .isInstanceOf(PemException.class).hasMessage(file + " holds no private key");
      }
    }

    @Test
    void saysWhenAFileIsMissing() {
      Path missing = dir.resolve("missing.pem");

      assertThatThrownBy(() -> PemFiles.readPrivateKey(missing))
          .isInstanceOf(PemException.class).hasMessage("cannot read " + missing + ": no such file");
    }

    @Test
    void refusesAnEncryptedKeyByName() throws Exception {
      Path encrypted = dir.resolve("encrypted.pem");
      Files.writeString(encrypted, "-----BEGIN EC PRIVATE KEY-----\n"
          + "Proc-Type: 4,ENCRYPTED\n"
          + "DEK-Info: AES-128-CBC,00112233445566778899AABBCCDDEEFF\n\n"
          + "AAAAAAAAAAAAAAAAAAAAAA==\n"
          + "-----END EC PRIVATE KEY-----\n");

      assertThatThrownBy(() -> PemFiles.readPrivateKey(encrypted))
          .isInstanceOf(PemException.class)
          .hasMessage(encrypted + " holds an encrypted private key; give it unencrypted");
    }
  }

  @Nested
  class Pairs {
    @Test
    void acceptsAKeyWithItsCertificate() throws Exception {
      CertifiedKey ca = ca();
      CertifiedKey server = server(ca);
      Path certificate = pem("cert.pem", server.certificate(), ca.certificate());
      Path key = pkcs8("key.pem", server.privateKey());

      CertifiedKey read = PemFiles.readCertifiedKey(certificate, key);

      assertThat(read.chain()).containsExactly(server.certificate(), ca.certificate());
      assertThat(read.privateKey().getEncoded()).isEqualTo(server.privateKey().getEncoded());
    }

    @Test
    void refusesAKeyOfAnotherCertificate() throws Exception {
      CertifiedKey ca = ca();
      Path certificate = pem("cert.pem", server(ca).certificate());
      Path key = pkcs8("key.pem", server(ca).privateKey());

      assertThatThrownBy(() -> PemFiles.readCertifiedKey(certificate, key))
          .isInstanceOf(PemException.class).hasMessage("the private key in " + key
              + " does not belong to the certificate in " + certificate);
    }

    @Test
    void refusesAnRsaKeyForAnEcCertificate() throws Exception {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      Path certificate = pem("cert.pem", ca().certificate());
      Path key = pem("rsa.pem", generator.generateKeyPair().getPrivate());

      assertThatThrownBy(() -> PemFiles.readCertifiedKey(certificate, key))
          .isInstanceOf(PemException.class).hasMessage("the private key in " + key
              + " does not belong to the certificate in " + certificate);
    }

    @Test
    void acceptsAnRsaPairInPkcs1Form() throws Exception {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      KeyPair keys = generator.generateKeyPair();
      X500Name name = new X500Name("CN=rsa");
      X509Certificate selfSigned = new JcaX509CertificateConverter().getCertificate(
          new JcaX509v3CertificateBuilder(name, BigInteger.ONE, Date.from(now),
              Date.from(now.plusSeconds(3600)), name, keys.getPublic())
              .build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
      Path certificate = pem("cert.pem", selfSigned);
      Path key = pem("key.pem", keys.getPrivate());

      assertThat(PemFiles.readCertifiedKey(certificate, key).certificate()).isEqualTo(selfSigned);
    }

    @Test
    void refusesAClientCertificateWithoutItsKey() throws Exception {
      Path certificate = pem("cert.pem", ca().certificate());

      assertThatThrownBy(() -> PemFiles.clientContext(null, certificate, null))
          .isInstanceOf(PemException.class)
          .hasMessage("a client certificate and its key must be given together");
    }
  }
}
