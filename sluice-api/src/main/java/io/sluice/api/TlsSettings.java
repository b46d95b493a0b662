package io.sluice.api;

import java.nio.file.Path;

/**
 * PEM files that turn a listener into HTTPS (CLI.md §8).
 *
 * @param certificateChain the listener's certificate, then any intermediates
 * @param privateKey the key of the first certificate (PKCS#8, PKCS#1 RSA or SEC1 EC)
 * @param clientCa when not null, clients must present a certificate chaining to one of these
 *     CAs (mutual TLS)
 */
public record TlsSettings(Path certificateChain, Path privateKey, Path clientCa) {
  public TlsSettings {
    if (certificateChain == null || privateKey == null) {
      throw new IllegalArgumentException("a TLS listener needs a certificate and a key");
    }
  }

  public boolean mutual() {
    return clientCa != null;
  }
}
