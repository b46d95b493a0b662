package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.Job;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The worker transport over https: the configured trust, and the host name check. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TlsTest {
  private static final char[] PASSWORD = "changeit".toCharArray();

  @TempDir
  static Path dir;
  /** Holds a self-signed certificate for 127.0.0.1 only (not "localhost"), and its key. */
  private static SSLContext selfSigned;

  @BeforeAll
  static void makeCertificate() throws Exception {
    Path keystore = dir.resolve("server.p12");
    Process keytool = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2",
        "-storetype", "PKCS12", "-keystore", keystore.toString(),
        "-storepass", "changeit", "-keypass", "changeit")
        .redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes());
    assertThat(keytool.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue()).as(output).isZero();

    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(keystore.toFile())) {
      store.load(in, PASSWORD);
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, PASSWORD);
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    selfSigned = SSLContext.getInstance("TLS");
    selfSigned.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
  }

  @Test
  void acksTravelOverTlsWithTheConfiguredTrust() throws Exception {
    try (FakeHttpServer server = FakeHttpServer.startTls(selfSigned, conn -> {
      while (conn.readRequest() != null) {
        conn.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      }
    })) {
      SluiceClient client = SluiceClient.builder(server.url()).sslContext(selfSigned).build();
      try (AckChannel channel = client.jobs().ackChannel()) {
        assertThat(channel.ackAll(List.of("a", "b"))).isEmpty();
      }
      FakeHttpServer.Request request = server.requests().get(0);
      assertThat(request.line()).isEqualTo("POST /jobs/success HTTP/1.1");
      assertThat(new String(request.body())).contains("\"a\"", "\"b\"");
    }
  }

  @Test
  void aTakeStreamReadsJobsOverTls() throws Exception {
    String job = "{\"id\":\"j1\",\"type\":\"t\",\"queue\":\"q\",\"status\":\"in_flight\","
        + "\"payload\":{}}\n";
    try (FakeHttpServer server = FakeHttpServer.startTls(selfSigned, conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n"
          + Integer.toHexString(job.length()) + "\r\n" + job + "\r\n0\r\n\r\n");
    })) {
      SluiceClient client = SluiceClient.builder(server.url()).sslContext(selfSigned).build();
      try (TakeStream stream = client.jobs().take(List.of("q"), 1, null)) {
        Job received = stream.next();
        assertThat(received.id()).isEqualTo("j1");
        assertThat(stream.next()).isNull();
      }
    }
  }

  @Test
  void aServerThatNeverAnswersTheHandshakeTimesOut() throws Exception {
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress())) {
      long start = System.nanoTime();
      assertThatThrownBy(() -> Http1Connection.open(
          java.net.URI.create("https://127.0.0.1:" + silent.getLocalPort()),
          java.time.Duration.ofMillis(300), selfSigned.getSocketFactory()))
          .isInstanceOf(java.io.IOException.class);
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
          .isLessThan(java.time.Duration.ofSeconds(5));
    }
  }

  @Test
  void anUntrustedCertificateIsRefused() {
    try (FakeHttpServer server = FakeHttpServer.startTls(selfSigned, conn -> conn.readRequest())) {
      SluiceClient client = SluiceClient.builder(server.url()).build(); // the JDK's default trust
      try (AckChannel channel = client.jobs().ackChannel()) {
        assertThatThrownBy(() -> channel.ackAll(List.of("a")))
            .isInstanceOf(ConnectionException.class);
      }
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void aCertificateForAnotherHostIsRefused() {
    try (FakeHttpServer server = FakeHttpServer.startTls(selfSigned, conn -> conn.readRequest())) {
      SluiceClient client = SluiceClient.builder("https://localhost:" + server.port())
          .sslContext(selfSigned).build();
      assertThatThrownBy(() -> client.jobs().take(List.of("q"), 1, null))
          .isInstanceOf(ConnectionException.class);
      assertThat(server.requests()).isEmpty();
    }
  }
}
