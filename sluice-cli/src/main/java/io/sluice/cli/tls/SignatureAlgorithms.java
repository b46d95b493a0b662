package io.sluice.cli.tls;

import java.security.PrivateKey;

/** The signature algorithm Sluice signs with for each kind of private key it accepts. */
final class SignatureAlgorithms {
  private SignatureAlgorithms() {}

  /** A JCA signature name; a key of another kind is refused, naming {@code source}. */
  static String forKey(PrivateKey key, Object source) {
    return switch (key.getAlgorithm()) {
      case "EC" -> "SHA256withECDSA";
      case "RSA" -> "SHA256withRSA";
      default -> throw new PemException(source + " holds a " + key.getAlgorithm()
          + " key; only EC and RSA keys are supported");
    };
  }
}
