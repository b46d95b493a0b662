package io.sluice.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Builds an {@link SSLContext} from PEM files such as {@code sluice tls init} writes: the CA
 * certificates to trust, and for mutual TLS a client certificate chain with its private key.
 * {@link SluiceClient.Builder#trustedCertificates} and
 * {@link SluiceClient.Builder#clientCertificate} use it, and it serves on its own too, e.g. for
 * another HTTP client. The files are read once, at the call; a problem with one (unreadable, no
 * certificate, an encrypted or unsupported key, a key that is not the certificate's) throws
 * {@link IllegalArgumentException} naming the file. Stateless and thread-safe.
 */
public final class PemTls {
  /** Guards nothing: the key store lives in memory only, for the length of one call. */
  private static final char[] STORE_PASSWORD = "sluice".toCharArray();

  private PemTls() {}

  /**
   * A TLS context trusting the certificates in {@code trustedCertificates} and presenting the
   * client certificate in {@code certificateChain} to servers that ask for one.
   *
   * @param trustedCertificates one or more CA certificates, trusted instead of the JDK's default
   *     trust store; null keeps the default
   * @param certificateChain the client certificate first, then any intermediate CAs; null for no
   *     client certificate
   * @param privateKey the client certificate's unencrypted key, PKCS#8 ({@code PRIVATE KEY}, RSA
   *     or EC), PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}); null exactly
   *     when {@code certificateChain} is. It may be the same file as {@code certificateChain}.
   */
  public static SSLContext sslContext(Path trustedCertificates, Path certificateChain,
      Path privateKey) {
    if ((certificateChain == null) != (privateKey == null)) {
      throw new IllegalArgumentException(
          "a client certificate needs both its certificate chain and its private key");
    }
    TrustManager[] trust = trustedCertificates == null ? null : trustManagers(trustedCertificates);
    KeyManager[] keys = certificateChain == null ? null : keyManagers(certificateChain, privateKey);
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, trust, null); // null trust: the JDK's default; null keys: none
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS", e);
    }
  }

  /** Every certificate in {@code path}, in file order; at least one. */
  static List<X509Certificate> certificates(Path path) {
    CertificateFactory x509;
    try {
      x509 = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("this JDK reads no X.509 certificates", e);
    }
    List<X509Certificate> certificates = new ArrayList<>();
    for (Pem.Block block : Pem.read(path)) {
      if (block.label().equals("CERTIFICATE")) {
        try {
          certificates.add((X509Certificate) x509.generateCertificate(
              new ByteArrayInputStream(block.der())));
        } catch (CertificateException e) {
          throw new IllegalArgumentException(path + ": certificate " + (certificates.size() + 1)
              + " is not a valid X.509 certificate: " + e.getMessage(), e);
        }
      }
    }
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException(path + " holds no certificate");
    }
    return certificates;
  }

  private static TrustManager[] trustManagers(Path path) {
    List<X509Certificate> authorities = certificates(path);
    try {
      KeyStore store = emptyStore();
      for (int i = 0; i < authorities.size(); i++) {
        store.setCertificateEntry("ca-" + i, authorities.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up TLS trust from " + path, e);
    }
  }

  private static KeyManager[] keyManagers(Path chainPath, Path keyPath) {
    List<X509Certificate> chain = certificates(chainPath);
    PrivateKey key = PemKeys.read(keyPath);
    requirePair(key, chain.get(0).getPublicKey(), keyPath, chainPath);
    try {
      KeyStore store = emptyStore();
      store.setKeyEntry("client", key, STORE_PASSWORD, chain.toArray(new Certificate[0]));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, STORE_PASSWORD);
      return factory.getKeyManagers();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot set up the client certificate from " + chainPath, e);
    }
  }

  /**
   * Signs and verifies a probe: a key from another pair would otherwise fail only at the
   * handshake, with an alert from the server that names no file.
   */
  private static void requirePair(PrivateKey key, PublicKey publicKey, Path keyPath,
      Path chainPath) {
    boolean paired = false;
    if (key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
      byte[] probe = "sluice key pair probe".getBytes(StandardCharsets.US_ASCII);
      try {
        Signature signer = Signature.getInstance(algorithm);
        signer.initSign(key);
        signer.update(probe);
        Signature verifier = Signature.getInstance(algorithm);
        verifier.initVerify(publicKey);
        verifier.update(probe);
        paired = verifier.verify(signer.sign());
      } catch (GeneralSecurityException e) {
        // Not a pair, e.g. keys on different curves.
      }
    }
    if (!paired) {
      throw new IllegalArgumentException(
          keyPath + " is not the private key of the first certificate in " + chainPath);
    }
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create an empty key store", e);
    }
    return store;
  }
}
