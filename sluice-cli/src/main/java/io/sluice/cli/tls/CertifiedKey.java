package io.sluice.cli.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A private key with its certificate chain, leaf first. Whoever builds one has checked that the key
 * belongs to the leaf (see {@link PemFiles#readCertifiedKey}).
 */
public record CertifiedKey(List<X509Certificate> chain, PrivateKey privateKey) {
  public CertifiedKey {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("a certified key needs at least one certificate");
    }
    chain = List.copyOf(chain);
  }

  public X509Certificate certificate() {
    return chain.get(0);
  }
}
