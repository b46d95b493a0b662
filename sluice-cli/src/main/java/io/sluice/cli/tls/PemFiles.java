package io.sluice.cli.tls;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.X509TrustedCertificateBlock;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads the PEM files that the TLS options name (certificate chains, unencrypted private keys in
 * PKCS#8, PKCS#1 RSA or SEC1 EC form), checks that a key belongs to its certificate, and builds the
 * JSSE objects a TLS client or server needs from them. Stateless; every failure is a {@link
 * PemException} whose message names the file. Keys and certificates are decoded by the JDK's own
 * providers, so nothing here needs Bouncy Castle registered as a JCA provider.
 */
public final class PemFiles {
  /** Protects keys only inside in-memory key stores, which a key store cannot do without. */
  private static final char[] IN_MEMORY_PASSWORD = "sluice".toCharArray();

  private PemFiles() {}

  /** The certificates in {@code file}, in file order (leaf first, for a chain). */
  public static List<X509Certificate> readCertificates(Path file) {
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    List<X509Certificate> certificates = new ArrayList<>();
    for (Object object : pemObjects(file)) {
      X509CertificateHolder holder = object instanceof X509TrustedCertificateBlock trusted
          ? trusted.getCertificateHolder()
          : object instanceof X509CertificateHolder plain ? plain : null;
      if (holder != null) {
        try {
          certificates.add(converter.getCertificate(holder));
        } catch (CertificateException e) {
          throw new PemException("cannot read " + file + ": " + e.getMessage(), e);
        }
      }
    }
    if (certificates.isEmpty()) {
      throw new PemException(file + " holds no certificate");
    }
    return List.copyOf(certificates);
  }

  /** The first private key in {@code file}; other PEM blocks (such as certificates) are skipped. */
  public static PrivateKey readPrivateKey(Path file) {
    for (Object object : pemObjects(file)) {
      if (object instanceof PKCS8EncryptedPrivateKeyInfo || object instanceof PEMEncryptedKeyPair) {
        throw new PemException(file + " holds an encrypted private key; give it unencrypted");
      }
      PrivateKeyInfo info = object instanceof PrivateKeyInfo pkcs8
          ? pkcs8
          : object instanceof PEMKeyPair pkcs1OrSec1 ? pkcs1OrSec1.getPrivateKeyInfo() : null;
      if (info != null) {
        try {
          return new JcaPEMKeyConverter().getPrivateKey(info);
        } catch (IOException e) {
          throw new PemException("cannot read " + file + ": " + e.getMessage(), e);
        }
      }
    }
    throw new PemException(file + " holds no private key");
  }

  /**
   * The chain in {@code certificateFile} with the key in {@code keyFile}, checked to belong
   * together: a server should refuse to start with a pair that no handshake could use.
   */
  public static CertifiedKey readCertifiedKey(Path certificateFile, Path keyFile) {
    List<X509Certificate> chain = readCertificates(certificateFile);
    PrivateKey key = readPrivateKey(keyFile);
    if (!signsFor(key, chain.get(0).getPublicKey(), keyFile)) {
      throw new PemException("the private key in " + keyFile
          + " does not belong to the certificate in " + certificateFile);
    }
    return new CertifiedKey(chain, key);
  }

  /**
   * A TLS client context. {@code trustedCaFile} (a CA bundle) replaces the JDK's trusted roots;
   * {@code clientCertificateFile} and {@code clientKeyFile}, given together, are presented for
   * mutual TLS. Each may be {@code null}. Host names are checked by the connection, not here
   * ({@code java.net.http.HttpClient} does so by default).
   */
  public static SSLContext clientContext(Path trustedCaFile, Path clientCertificateFile,
      Path clientKeyFile) {
    if ((clientCertificateFile == null) != (clientKeyFile == null)) {
      throw new PemException("a client certificate and its key must be given together");
    }
    KeyManager[] keyManagers = clientCertificateFile == null
        ? null
        : keyManagers(readCertifiedKey(clientCertificateFile, clientKeyFile));
    TrustManager[] trustManagers = trustedCaFile == null
        ? null
        : trustManagers(readCertificates(trustedCaFile));
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers, trustManagers, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make a TLS context", e);
    }
  }

  /** Key managers that present {@code key} with its chain. */
  public static KeyManager[] keyManagers(CertifiedKey key) {
    try {
      KeyStore store = emptyKeyStore();
      store.setKeyEntry("key", key.privateKey(), IN_MEMORY_PASSWORD,
          key.chain().toArray(new Certificate[0]));
      KeyManagerFactory factory =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, IN_MEMORY_PASSWORD);
      return factory.getKeyManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("the JDK cannot hold the key in a key store", e);
    }
  }

  /** Trust managers that trust exactly {@code authorities} (and whatever chains to them). */
  public static TrustManager[] trustManagers(List<X509Certificate> authorities) {
    try {
      KeyStore store = emptyKeyStore();
      for (int i = 0; i < authorities.size(); i++) {
        store.setCertificateEntry("ca-" + i, authorities.get(i));
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory.getTrustManagers();
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("the JDK cannot hold the certificates in a key store", e);
    }
  }

  private static KeyStore emptyKeyStore() throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    return store;
  }

  /** Whether a signature made with {@code key} verifies with {@code publicKey}. */
  private static boolean signsFor(PrivateKey key, PublicKey publicKey, Path keyFile) {
    byte[] probe = "sluice key check".getBytes(StandardCharsets.US_ASCII);
    try {
      Signature signer = Signature.getInstance(SignatureAlgorithms.forKey(key, keyFile));
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(signer.getAlgorithm());
      verifier.initVerify(publicKey);
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      // A public key of another kind than the private key (RSA against EC) lands here.
      return false;
    }
  }

  private static List<Object> pemObjects(Path file) {
    String text;
    try {
      // Latin-1 decodes any bytes, so a binary file reads as text without PEM blocks.
      text = Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new PemException("cannot read " + file + ": " + IoReasons.of(e), e);
    }
    List<Object> objects = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(text))) {
      for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
        objects.add(object);
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new PemException("cannot read " + file + ": " + e.getMessage(), e);
    }
    return objects;
  }
}
