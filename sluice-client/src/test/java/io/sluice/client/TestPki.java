package io.sluice.client;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.ASN1BitString;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * A throwaway PKI for TLS tests, made with BouncyCastle independently of the code under test: CAs,
 * a server certificate for {@code localhost} and {@code 127.0.0.1}, client certificates, and PEM
 * files in each key format the client reads. The server side is a plain JDK {@link SSLContext}.
 */
final class TestPki {
  /** A certificate and the key pair it certifies. */
  record Issued(X509Certificate certificate, KeyPair keys) {}

  /** The private key formats the client reads from PEM. */
  enum KeyFormat {
    PKCS8_EC, PKCS8_RSA, PKCS1_RSA, SEC1_EC;

    boolean rsa() {
      return this == PKCS8_RSA || this == PKCS1_RSA;
    }

    /** Writes the private key of {@code keys} (RSA or EC as {@link #rsa} says) to {@code file}. */
    Path write(Path file, KeyPair keys) {
      return switch (this) {
        case PKCS8_EC, PKCS8_RSA -> writePkcs8(file, keys.getPrivate());
        case PKCS1_RSA -> writePkcs1(file, keys.getPrivate());
        case SEC1_EC -> writeSec1(file, keys, X9ObjectIdentifiers.prime256v1);
      };
    }
  }

  private static final AtomicLong SERIALS = new AtomicLong(1);
  private static final char[] PASSWORD = "test".toCharArray();

  private TestPki() {}

  static KeyPair ecKeys(String curve) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec(curve));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static KeyPair ecKeys() {
    return ecKeys("secp256r1");
  }

  static KeyPair rsaKeys() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A self-signed CA with an EC P-256 key. */
  static Issued authority(String commonName) {
    KeyPair keys = ecKeys();
    X500Principal name = new X500Principal("CN=" + commonName);
    return new Issued(sign(new JcaX509v3CertificateBuilder(name, serial(), notBefore(),
        notAfter(), name, keys.getPublic()), true, false, keys.getPrivate()), keys);
  }

  /** A server certificate for {@code localhost} and {@code 127.0.0.1}, issued by {@code ca}. */
  static Issued server(Issued ca) {
    KeyPair keys = ecKeys();
    return new Issued(sign(builder(ca, "CN=localhost", keys), false, true,
        ca.keys().getPrivate()), keys);
  }

  /** A client certificate for {@code keys}, issued by {@code ca}. */
  static Issued client(Issued ca, String commonName, KeyPair keys) {
    return new Issued(sign(builder(ca, "CN=" + commonName, keys), false, false,
        ca.keys().getPrivate()), keys);
  }

  /**
   * The server's side: presents {@code server} with its CA, and accepts client certificates
   * that chain to {@code clientCa}.
   */
  static SSLContext serverContext(Issued server, Issued ca, Issued clientCa) {
    try {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      keyStore.setKeyEntry("server", server.keys().getPrivate(), PASSWORD,
          new X509Certificate[] {server.certificate(), ca.certificate()});
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(keyStore, PASSWORD);
      KeyStore trustStore = KeyStore.getInstance("PKCS12");
      trustStore.load(null, null);
      trustStore.setCertificateEntry("client-ca", clientCa.certificate());
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trustStore);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Path writeCertificates(Path file, X509Certificate... certificates) {
    StringBuilder pem = new StringBuilder();
    try {
      for (X509Certificate certificate : certificates) {
        pem.append(pem("CERTIFICATE", certificate.getEncoded()));
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
    return write(file, pem.toString());
  }

  /** {@code PRIVATE KEY}: the JDK's own encoding of any key. */
  static Path writePkcs8(Path file, PrivateKey key) {
    return write(file, pem("PRIVATE KEY", key.getEncoded()));
  }

  /** {@code RSA PRIVATE KEY}: the RSAPrivateKey inside the PKCS#8 encoding. */
  static Path writePkcs1(Path file, PrivateKey rsaKey) {
    try {
      return write(file, pem("RSA PRIVATE KEY",
          PrivateKeyInfo.getInstance(rsaKey.getEncoded()).parsePrivateKey().toASN1Primitive()
              .getEncoded()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code EC PRIVATE KEY} as OpenSSL writes it: the curve in {@code [0]} and the public point in
   * {@code [1]}; without {@code curve}, no {@code [0]}.
   */
  static Path writeSec1(Path file, KeyPair ecKeys, ASN1ObjectIdentifier curve) {
    ECPrivateKey key = (ECPrivateKey) ecKeys.getPrivate();
    int orderBits = key.getParams().getOrder().bitLength();
    ASN1BitString publicKey =
        SubjectPublicKeyInfo.getInstance(ecKeys.getPublic().getEncoded()).getPublicKeyData();
    org.bouncycastle.asn1.sec.ECPrivateKey sec1 = curve == null
        ? new org.bouncycastle.asn1.sec.ECPrivateKey(orderBits, key.getS())
        : new org.bouncycastle.asn1.sec.ECPrivateKey(orderBits, key.getS(), publicKey, curve);
    try {
      return write(file, pem("EC PRIVATE KEY", sec1.getEncoded()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String pem(String label, byte[] der) {
    StringWriter text = new StringWriter();
    try (PemWriter writer = new PemWriter(text)) {
      writer.writeObject(new PemObject(label, der));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return text.toString();
  }

  static Path write(Path file, String text) {
    try {
      return Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JcaX509v3CertificateBuilder builder(Issued ca, String subject, KeyPair keys) {
    return new JcaX509v3CertificateBuilder(ca.certificate(), serial(), notBefore(), notAfter(),
        new X500Principal(subject), keys.getPublic());
  }

  private static X509Certificate sign(JcaX509v3CertificateBuilder builder, boolean authority,
      boolean server, PrivateKey issuerKey) {
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(authority));
      if (server) {
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
            new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
      }
      String algorithm = issuerKey.getAlgorithm().equals("RSA")
          ? "SHA256withRSA" : "SHA256withECDSA";
      return new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey)));
    } catch (Exception e) {
      throw new IllegalStateException("cannot issue a test certificate", e);
    }
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIALS.getAndIncrement());
  }

  /** An hour back, so that clock skew between signing and checking cannot matter. */
  private static Date notBefore() {
    return Date.from(Instant.now().minus(Duration.ofHours(1)));
  }

  private static Date notAfter() {
    return Date.from(Instant.now().plus(Duration.ofDays(1)));
  }
}
