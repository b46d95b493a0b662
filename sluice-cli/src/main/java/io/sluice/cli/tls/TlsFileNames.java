package io.sluice.cli.tls;

/** The names of the PEM files {@code sluice tls} writes into its output directory. */
final class TlsFileNames {
  static final String CA_CERT = "ca-cert.pem";
  static final String CA_KEY = "ca-key.pem";
  static final String SERVER_CERT = "server-cert.pem";
  static final String SERVER_KEY = "server-key.pem";

  private TlsFileNames() {}

  static String clientCert(String name) {
    return "client-" + name + "-cert.pem";
  }

  static String clientKey(String name) {
    return "client-" + name + "-key.pem";
  }

  static String peerCert(String name) {
    return "peer-" + name + "-cert.pem";
  }

  static String peerKey(String name) {
    return "peer-" + name + "-key.pem";
  }
}
