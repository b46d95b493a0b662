package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/**
 * Reads what {@code sluice tls} wrote with the JDK alone, not with {@link PemFiles}, which is under
 * test itself.
 */
final class GeneratedFiles {
  private GeneratedFiles() {}

  static X509Certificate certificate(Path file) throws IOException, GeneralSecurityException {
    return (X509Certificate) CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(file)));
  }

  /** The key in a PKCS#8 {@code PRIVATE KEY} PEM file, failing the test for any other form. */
  static PrivateKey pkcs8Key(Path file) throws IOException, GeneralSecurityException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
    assertThat(lines.get(0)).isEqualTo("-----BEGIN PRIVATE KEY-----");
    assertThat(lines.get(lines.size() - 1)).isEqualTo("-----END PRIVATE KEY-----");
    byte[] der = Base64.getDecoder().decode(String.join("", lines.subList(1, lines.size() - 1)));
    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(der));
  }

  static boolean isP256(PublicKey key) {
    return key instanceof ECPublicKey && SubjectPublicKeyInfo.getInstance(key.getEncoded())
        .getAlgorithm().getParameters().equals(SECObjectIdentifiers.secp256r1);
  }

  static boolean isP256(PrivateKey key) {
    return key instanceof ECPrivateKey && PrivateKeyInfo.getInstance(key.getEncoded())
        .getPrivateKeyAlgorithm().getParameters().equals(SECObjectIdentifiers.secp256r1);
  }

  /** Whether {@code key} signs what the certificate's public key verifies. */
  static boolean belongTogether(PrivateKey key, X509Certificate certificate)
      throws GeneralSecurityException {
    byte[] message = "probe".getBytes(StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update(message);
    Signature verifier = Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(certificate.getPublicKey());
    verifier.update(message);
    return verifier.verify(signer.sign());
  }

  /** The subject alternative names as "DNS:name" and "IP:address", in certificate order. */
  static List<String> altNames(X509Certificate certificate) throws GeneralSecurityException {
    List<String> names = new ArrayList<>();
    for (List<?> entry : certificate.getSubjectAlternativeNames()) {
      int type = (Integer) entry.get(0);
      names.add((type == 2 ? "DNS:" : type == 7 ? "IP:" : type + ":") + entry.get(1));
    }
    return names;
  }
}
