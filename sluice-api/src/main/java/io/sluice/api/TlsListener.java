package io.sluice.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Turns listener options into HTTPS (CLI.md §8): TLS 1.2 and 1.3, ALPN offering {@code h2} then
 * {@code http/1.1}, and with a client CA a handshake that fails unless the client presents a
 * certificate chaining to it. The PEM files are read here, once, at start-up; a change on disk
 * takes effect at the next start.
 */
final class TlsListener {
  static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  /** A handshake not finished within this is dropped, so idle sockets cannot hold a slot. */
  private static final long HANDSHAKE_TIMEOUT_SECONDS = 10;

  private TlsListener() {}

  static void configure(HttpServerOptions options, TlsSettings tls) {
    options.setSsl(true)
        .setUseAlpn(true)
        .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
        .setEnabledSecureTransportProtocols(PROTOCOLS)
        .setSslHandshakeTimeout(HANDSHAKE_TIMEOUT_SECONDS)
        .setKeyCertOptions(new PemKeyCertOptions()
            .setCertValue(read(tls.certificateChain()))
            .setKeyValue(read(tls.privateKey())));
    if (tls.mutual()) {
      options.setTrustOptions(new PemTrustOptions().addCertValue(read(tls.clientCa())))
          .setClientAuth(ClientAuth.REQUIRED);
    }
  }

  private static Buffer read(Path file) {
    try {
      return Buffer.buffer(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
