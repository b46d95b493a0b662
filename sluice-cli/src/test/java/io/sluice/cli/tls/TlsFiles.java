package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.CliRunner;
import java.nio.file.Path;
import javax.net.ssl.SSLContext;

/** A CA, a server certificate for localhost and 127.0.0.1, and client certificates, as written by {@code sluice tls init}. */
public record TlsFiles(Path dir) {
  public static TlsFiles init(Path dir, String... clients) throws Exception {
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("tls", "init",
        "--out-dir", dir.toString(), "--san", "localhost", "--san", "127.0.0.1"));
    for (String client : clients) {
      args.add("--client");
      args.add(client);
    }
    CliRunner.Result result = CliRunner.sluice(args.toArray(String[]::new));
    assertThat(result.exitCode()).as(result.toString()).isZero();
    return new TlsFiles(dir);
  }

  public Path caCert() {
    return dir.resolve("ca-cert.pem");
  }

  public Path serverCert() {
    return dir.resolve("server-cert.pem");
  }

  public Path serverKey() {
    return dir.resolve("server-key.pem");
  }

  public Path clientCert(String name) {
    return dir.resolve("client-" + name + "-cert.pem");
  }

  public Path clientKey(String name) {
    return dir.resolve("client-" + name + "-key.pem");
  }

  public SSLContext trustOnly() throws Exception {
    return context(caCert(), null, null);
  }

  SSLContext clientContext(String name) throws Exception {
    return context(caCert(), clientCert(name), clientKey(name));
  }

  static SSLContext context(Path ca, Path cert, Path key) throws Exception {
    return PemFiles.clientContext(ca, cert, key);
  }
}
