package io.sluice.client;

import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the one unencrypted private key of a PEM file: PKCS#8 ({@code PRIVATE KEY}, RSA or EC),
 * PKCS#1 ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}). The JDK's {@link KeyFactory}
 * reads only PKCS#8, so the other two are first wrapped into a PKCS#8 PrivateKeyInfo under the
 * algorithm identifier they imply (for SEC1, with the curve its {@code [0]} parameters name).
 * Problems throw {@link IllegalArgumentException} naming the file.
 */
final class PemKeys {
  private static final String PKCS8 = "PRIVATE KEY";
  private static final String PKCS1 = "RSA PRIVATE KEY";
  private static final String SEC1 = "EC PRIVATE KEY";
  private static final String ENCRYPTED_PKCS8 = "ENCRYPTED PRIVATE KEY";

  /** OBJECT IDENTIFIER contents: rsaEncryption, 1.2.840.113549.1.1.1. */
  private static final byte[] RSA_ENCRYPTION =
      {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01};
  /** OBJECT IDENTIFIER contents: id-ecPublicKey, 1.2.840.10045.2.1. */
  private static final byte[] EC_PUBLIC_KEY =
      {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

  private PemKeys() {}

  static PrivateKey read(Path path) {
    List<Pem.Block> keys = Pem.read(path).stream()
        .filter(block -> block.label().endsWith(PKCS8))
        .toList();
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(path + " holds no private key");
    }
    if (keys.size() > 1) {
      throw new IllegalArgumentException(
          path + " holds " + keys.size() + " private keys; expected one");
    }
    Pem.Block key = keys.get(0);
    if (key.encrypted() || key.label().equals(ENCRYPTED_PKCS8)) {
      throw new IllegalArgumentException(path + " holds an encrypted private key; encrypted keys"
          + " are not supported (decrypt it first, e.g. openssl pkey -in key.pem -out plain.pem)");
    }
    try {
      return decode(key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  private static PrivateKey decode(Pem.Block key) {
    byte[] pkcs8 = switch (key.label()) {
      case PKCS8 -> key.der();
      case PKCS1 -> privateKeyInfo(
          Der.sequence(Der.element(Der.OID, RSA_ENCRYPTION), Der.element(Der.NULL, new byte[0])),
          key.der());
      case SEC1 -> privateKeyInfo(
          Der.sequence(Der.element(Der.OID, EC_PUBLIC_KEY), namedCurve(key.der())), key.der());
      default -> throw new IllegalArgumentException("unsupported key format " + key.label()
          + "; supported: PRIVATE KEY (PKCS#8), RSA PRIVATE KEY (PKCS#1), EC PRIVATE KEY (SEC1)");
    };
    String algorithm = algorithm(pkcs8);
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
    } catch (InvalidKeySpecException e) {
      throw new IllegalArgumentException(
          "not a valid " + algorithm + " private key: " + e.getMessage(), e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no " + algorithm + " key factory", e);
    }
  }

  private static byte[] privateKeyInfo(byte[] algorithmIdentifier, byte[] key) {
    return Der.sequence(Der.element(Der.INTEGER, new byte[] {0}), algorithmIdentifier,
        Der.element(Der.OCTET_STRING, key));
  }

  /** The curve OID, encoded, from a SEC1 ECPrivateKey's {@code [0]} parameters. */
  private static byte[] namedCurve(byte[] sec1) {
    Der.Reader fields = new Der.Reader(sec1).next(Der.SEQUENCE, "ECPrivateKey").children();
    fields.next(Der.INTEGER, "version");
    fields.next(Der.OCTET_STRING, "private key");
    while (fields.hasNext()) {
      Der.Element field = fields.next();
      if (field.tag() == Der.CONTEXT_0) {
        Der.Element parameters = field.children().next();
        if (parameters.tag() != Der.OID) {
          throw new IllegalArgumentException(
              "the EC key gives explicit curve parameters; only named curves are supported");
        }
        return parameters.encoded();
      }
    }
    throw new IllegalArgumentException("the EC key does not name its curve");
  }

  /** The JDK's name for the algorithm a PKCS#8 PrivateKeyInfo declares. */
  private static String algorithm(byte[] pkcs8) {
    Der.Reader fields = new Der.Reader(pkcs8).next(Der.SEQUENCE, "PrivateKeyInfo").children();
    fields.next(Der.INTEGER, "version");
    byte[] oid = fields.next(Der.SEQUENCE, "algorithm").children()
        .next(Der.OID, "algorithm OID").content();
    if (Arrays.equals(oid, RSA_ENCRYPTION)) {
      return "RSA";
    }
    if (Arrays.equals(oid, EC_PUBLIC_KEY)) {
      return "EC";
    }
    throw new IllegalArgumentException(
        "unsupported key algorithm " + Der.dotted(oid) + "; supported: RSA, EC");
  }
}
