package io.sluice.cli.tls;

import static io.sluice.cli.CliRunner.sluice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files of {@code sluice tls init} work for mutual TLS: a JDK server that requires client
 * certificates accepts a client built by {@link PemFiles#clientContext} with its certificate, and
 * refuses one without.
 */
class TlsHandshakeTest {
  private static final int TIMEOUT_MS = 5_000;

  @TempDir Path dir;
  private SSLServerSocket server;
  private final ExecutorService acceptor = Executors.newSingleThreadExecutor(
      runnable -> new Thread(runnable, "tls-test-acceptor"));

  @BeforeEach
  void startServer() throws Exception {
    assertThat(sluice("tls", "init", "--out-dir", dir.toString(), "--client", "alice").exitCode())
        .isZero();
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(
        PemFiles.keyManagers(PemFiles.readCertifiedKey(dir.resolve("server-cert.pem"),
            dir.resolve("server-key.pem"))),
        PemFiles.trustManagers(PemFiles.readCertificates(dir.resolve("ca-cert.pem"))), null);
    server = (SSLServerSocket) context.getServerSocketFactory()
        .createServerSocket(0, 1, InetAddress.getLoopbackAddress());
    server.setNeedClientAuth(true);
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close();
    acceptor.shutdownNow();
    assertThat(acceptor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
  }

  /** Accepts one connection, completes the handshake and answers with one byte. */
  private Future<String> acceptOne() {
    return acceptor.submit(() -> {
      try (SSLSocket socket = (SSLSocket) server.accept()) {
        socket.setSoTimeout(TIMEOUT_MS);
        socket.startHandshake();
        socket.getOutputStream().write('k');
        socket.getOutputStream().flush();
        return socket.getSession().getPeerPrincipal().getName();
      }
    });
  }

  /** Connects by host name, checked against the server certificate, and reads the answer. */
  private int exchange(SSLContext client) throws IOException {
    try (SSLSocket socket = (SSLSocket) client.getSocketFactory()
        .createSocket("localhost", server.getLocalPort())) {
      socket.setSoTimeout(TIMEOUT_MS);
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      InputStream in = socket.getInputStream();
      return in.read();
    }
  }

  @Test
  void aClientWithItsCertificateCompletesTheHandshake() throws Exception {
    Future<String> accepted = acceptOne();
    SSLContext client = PemFiles.clientContext(dir.resolve("ca-cert.pem"),
        dir.resolve("client-alice-cert.pem"), dir.resolve("client-alice-key.pem"));

    assertThat(exchange(client)).isEqualTo('k');
    assertThat(accepted.get(5, TimeUnit.SECONDS)).isEqualTo("CN=alice");
  }

  @Test
  void aClientWithoutACertificateIsRefused() {
    Future<String> accepted = acceptOne();
    SSLContext client = PemFiles.clientContext(dir.resolve("ca-cert.pem"), null, null);

    assertThatThrownBy(() -> exchange(client)).isInstanceOf(SSLException.class);
    assertThatThrownBy(() -> accepted.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(SSLException.class);
  }

  @Test
  void aClientThatDoesNotTrustTheCaRefusesTheServer() {
    Future<String> accepted = acceptOne();
    SSLContext client = PemFiles.clientContext(dir.resolve("client-alice-cert.pem"),
        dir.resolve("client-alice-cert.pem"), dir.resolve("client-alice-key.pem"));

    assertThatThrownBy(() -> exchange(client)).isInstanceOf(SSLException.class);
    assertThatThrownBy(() -> accepted.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class);
  }
}
