package io.sluice.cli.tls;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.asn1.x509.SubjectKeyIdentifier;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Makes ECDSA P-256 key pairs and the certificates of a small private PKI: a self-signed CA, server
 * certificates (serverAuth, with subject alternative names) and client certificates (clientAuth).
 * Stateless apart from its random source. Signing and key generation go through the JDK's
 * providers; Bouncy Castle only builds and encodes the certificate structures.
 */
final class CertificateIssuer {
  static final String CURVE = "secp256r1";
  /** Validity starts this long before now, so a peer whose clock is a little behind accepts it. */
  static final Duration BACKDATE = Duration.ofHours(1);

  private final SecureRandom random = new SecureRandom();

  /** A self-signed CA certificate with a new key. */
  CertifiedKey authority(String commonName, int days, Instant now) {
    KeyPair keys = newKeyPair();
    X500Name subject = name(commonName);
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serialNumber(),
        notBefore(now), notAfter(now, days), subject, keys.getPublic());
    JcaX509ExtensionUtils extensions = extensionUtils();
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(Extension.keyUsage, true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(Extension.subjectKeyIdentifier, false,
          extensions.createSubjectKeyIdentifier(keys.getPublic()));
    } catch (CertIOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
    return new CertifiedKey(List.of(sign(builder, keys.getPrivate(), "the new CA key")),
        keys.getPrivate());
  }

  /** A server certificate for {@code altNames}, signed by {@code authority}. */
  CertifiedKey server(CertifiedKey authority, String commonName, SubjectAltNames altNames,
      int days, Instant now) {
    return leaf(authority, commonName, KeyPurposeId.id_kp_serverAuth, altNames.generalNames(),
        days, now);
  }

  /** A client certificate whose common name is {@code name}, signed by {@code authority}. */
  CertifiedKey client(CertifiedKey authority, String name, int days, Instant now) {
    return leaf(authority, name, KeyPurposeId.id_kp_clientAuth, null, days, now);
  }

  /**
   * A certificate for a cluster node named {@code name}, reachable at {@code altNames}: it both
   * serves its peers and connects to them, so it is good for server and client authentication.
   */
  CertifiedKey peer(CertifiedKey authority, String name, SubjectAltNames altNames, int days,
      Instant now) {
    return leaf(authority, name,
        new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth},
        altNames.generalNames(), days, now);
  }

  private CertifiedKey leaf(CertifiedKey authority, String commonName, KeyPurposeId purpose,
      GeneralNames altNames, int days, Instant now) {
    return leaf(authority, commonName, new KeyPurposeId[] {purpose}, altNames, days, now);
  }

  private CertifiedKey leaf(CertifiedKey authority, String commonName, KeyPurposeId[] purposes,
      GeneralNames altNames, int days, Instant now) {
    KeyPair keys = newKeyPair();
    X509Certificate issuer = authority.certificate();
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, serialNumber(),
        notBefore(now), notAfter(now, days), name(commonName), keys.getPublic());
    JcaX509ExtensionUtils extensions = extensionUtils();
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
      builder.addExtension(Extension.subjectKeyIdentifier, false,
          extensions.createSubjectKeyIdentifier(keys.getPublic()));
      builder.addExtension(Extension.authorityKeyIdentifier, false,
          authorityKeyIdentifier(issuer, extensions));
      if (altNames != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, altNames);
      }
    } catch (CertIOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
    X509Certificate certificate = sign(builder, authority.privateKey(), "the CA key");
    return new CertifiedKey(List.of(certificate), keys.getPrivate());
  }

  /**
   * The CA's own subject key identifier when it has one, so that chains also build with a CA made
   * elsewhere whose identifier was derived differently.
   */
  private static AuthorityKeyIdentifier authorityKeyIdentifier(X509Certificate issuer,
      JcaX509ExtensionUtils extensions) {
    byte[] encoded = issuer.getExtensionValue(Extension.subjectKeyIdentifier.getId());
    if (encoded == null) {
      return extensions.createAuthorityKeyIdentifier(issuer.getPublicKey());
    }
    try {
      SubjectKeyIdentifier identifier =
          SubjectKeyIdentifier.getInstance(JcaX509ExtensionUtils.parseExtensionValue(encoded));
      return new AuthorityKeyIdentifier(identifier.getKeyIdentifier());
    } catch (IOException e) {
      throw new PemException("the CA certificate has a malformed subject key identifier", e);
    }
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signingKey,
      String keyDescription) {
    try {
      return new JcaX509CertificateConverter().getCertificate(builder.build(
          new JcaContentSignerBuilder(SignatureAlgorithms.forKey(signingKey, keyDescription))
              .build(signingKey)));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new PemException("cannot sign with " + keyDescription + ": " + e.getMessage(), e);
    }
  }

  private KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec(CURVE), random);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK cannot make " + CURVE + " keys", e);
    }
  }

  /** Positive and at most 20 octets once encoded, as RFC 5280 asks. */
  private BigInteger serialNumber() {
    return new BigInteger(159, random).add(BigInteger.ONE);
  }

  private static X500Name name(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
  }

  private static Date notBefore(Instant now) {
    return Date.from(now.minus(BACKDATE).truncatedTo(ChronoUnit.SECONDS));
  }

  private static Date notAfter(Instant now, int days) {
    return Date.from(now.plus(Duration.ofDays(days)).truncatedTo(ChronoUnit.SECONDS));
  }

  private static JcaX509ExtensionUtils extensionUtils() {
    try {
      return new JcaX509ExtensionUtils();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK offers no SHA-1 for key identifiers", e);
    }
  }
}
