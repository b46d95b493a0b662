package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.TlsSettings;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.JobQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual TLS configured from PEM files, against servers that require a client certificate: both
 * the JDK client's requests and the worker's own connections (take stream, acks) present it, in
 * each key format, and the server's refusals reach the caller as connection failures.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class PemTlsTest {
  @TempDir
  static Path dir;
  private static TestPki.Issued ca;
  private static TestPki.Issued ecClient;
  private static TestPki.Issued rsaClient;
  /** Presents the server certificate of {@code ca}; accepts only client certificates of it. */
  private static SSLContext serverTls;
  private static Path caPem;
  private static Path otherCaPem;

  @BeforeAll
  static void makePki() {
    ca = TestPki.authority("test-ca");
    TestPki.Issued otherCa = TestPki.authority("other-ca");
    ecClient = TestPki.client(ca, "worker-ec", TestPki.ecKeys());
    rsaClient = TestPki.client(ca, "worker-rsa", TestPki.rsaKeys());
    serverTls = TestPki.serverContext(TestPki.server(ca), ca, ca);
    caPem = TestPki.writeCertificates(dir.resolve("ca-cert.pem"), ca.certificate());
    otherCaPem = TestPki.writeCertificates(dir.resolve("other-ca-cert.pem"),
        otherCa.certificate());
  }

  private static Path certificateFile(TestPki.Issued client, String name) {
    return TestPki.writeCertificates(dir.resolve(name), client.certificate());
  }

  private static Path ecKeyFile() {
    return TestPki.KeyFormat.PKCS8_EC.write(dir.resolve("worker-ec-key.pem"), ecClient.keys());
  }

  /** Answers health checks and acks, noting the client certificate of each connection. */
  private static FakeHttpServer.Handler answering(List<String> clients) {
    return conn -> {
      clients.add(((SSLSocket) conn.socket).getSession().getPeerPrincipal().getName());
      FakeHttpServer.Request request;
      while ((request = conn.readRequest()) != null) {
        conn.write(request.line().startsWith("GET /health")
            ? "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n"
                + "{\"status\":\"ok\"}"
            : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      }
    };
  }

  /** The real server with {@code --tls-client-ca}: every connection must present a certificate. */
  private static TestServer mutualTlsServer() {
    TestPki.Issued server = TestPki.server(ca);
    Path cert = TestPki.writeCertificates(dir.resolve("server-cert.pem"), server.certificate());
    Path key = TestPki.KeyFormat.PKCS8_EC.write(dir.resolve("server-key.pem"), server.keys());
    return TestServer.start(dir, new TlsSettings(cert, key, caPem));
  }

  @Test
  void aWorkerTakesAndAcksJobsOfARealServerOverMutualTls() {
    String queue = TestServer.uniqueName("mtls");
    Set<String> handled = ConcurrentHashMap.newKeySet();
    try (TestServer server = mutualTlsServer()) {
      SluiceClient client = SluiceClient.builder(server.url())
          .trustedCertificates(caPem)
          .clientCertificate(certificateFile(ecClient, "worker-ec-cert.pem"), ecKeyFile())
          .build();
      String id = client.jobs()
          .enqueue(EnqueueRequest.builder(queue, "greet", Map.of("name", "ada")).build()).id();
      try (Worker worker = Worker.builder(client).queues(queue).concurrency(1).build()) {
        worker.handle("greet", Map.class, (payload, job) -> handled.add(job.id()));
        worker.start();
        Await.until(() -> client.jobs().count(JobQuery.all().queues(queue)), n -> n == 0,
            "the job to be acked");
      }
      assertThat(handled).containsExactly(id);
    }
  }

  @Test
  void theRealServerRefusesAClientWithoutACertificate() {
    try (TestServer server = mutualTlsServer()) {
      SluiceClient anonymous = SluiceClient.builder(server.url()).trustedCertificates(caPem)
          .build();

      assertThatThrownBy(anonymous::health).isInstanceOf(ConnectionException.class);
    }
  }

  @ParameterizedTest
  @EnumSource(TestPki.KeyFormat.class)
  void eachKeyFormatPresentsTheClientCertificateOnBothTransports(TestPki.KeyFormat format) {
    TestPki.Issued identity = format.rsa() ? rsaClient : ecClient;
    List<String> clients = new CopyOnWriteArrayList<>();
    try (FakeHttpServer server = FakeHttpServer.startMutualTls(serverTls, answering(clients))) {
      SluiceClient client = SluiceClient.builder(server.url())
          .trustedCertificates(caPem)
          .clientCertificate(certificateFile(identity, format + "-cert.pem"),
              format.write(dir.resolve(format + "-key.pem"), identity.keys()))
          .build();
      assertThat(client.health()).isEqualTo("ok");
      try (AckChannel channel = client.jobs().ackChannel()) {
        assertThat(channel.ackAll(List.of("a"))).isEmpty();
      }
      String subject = identity.certificate().getSubjectX500Principal().getName();
      assertThat(clients).containsExactly(subject, subject);
    }
  }

  @Test
  void aClientWithoutACertificateIsRefused() {
    assertRefused(url -> SluiceClient.builder(url).trustedCertificates(caPem));
  }

  @Test
  void aClientCertificateFromAnotherCaIsRefused() {
    TestPki.Issued stranger = TestPki.client(TestPki.authority("stranger-ca"), "stranger",
        TestPki.ecKeys());
    Path certificate = certificateFile(stranger, "stranger-cert.pem");
    Path key = TestPki.writePkcs8(dir.resolve("stranger-key.pem"), stranger.keys().getPrivate());
    assertRefused(url -> SluiceClient.builder(url)
        .trustedCertificates(caPem)
        .clientCertificate(certificate, key));
  }

  @Test
  void theServerMustChainToTheTrustedCertificatesRatherThanTheJdkDefaults() {
    List<String> clients = new CopyOnWriteArrayList<>();
    try (FakeHttpServer server = FakeHttpServer.startMutualTls(serverTls, answering(clients))) {
      SluiceClient client = SluiceClient.builder(server.url())
          .trustedCertificates(otherCaPem)
          .clientCertificate(certificateFile(ecClient, "worker-ec-cert.pem"), ecKeyFile())
          .build();
      assertThatThrownBy(client::health).isInstanceOf(ConnectionException.class);
      assertThatThrownBy(() -> client.jobs().take(List.of("q"), 1, null))
          .isInstanceOf(ConnectionException.class);
      assertThat(server.requests()).isEmpty();
    }
  }

  @Test
  void aBundleTrustsEachOfItsAuthoritiesAndTheContextServesOnItsOwn() {
    Path bundle = TestPki.writeCertificates(dir.resolve("bundle.pem"),
        TestPki.authority("first-ca").certificate(), ca.certificate());
    List<String> clients = new CopyOnWriteArrayList<>();
    try (FakeHttpServer server = FakeHttpServer.startMutualTls(serverTls, answering(clients))) {
      SSLContext tls = PemTls.sslContext(bundle,
          certificateFile(ecClient, "worker-ec-cert.pem"), ecKeyFile());
      assertThat(SluiceClient.builder(server.url()).sslContext(tls).build().health())
          .isEqualTo("ok");
      assertThat(clients).containsExactly("CN=worker-ec");
    }
  }

  /** Both transports fail to connect, and no request reaches the server. */
  private static void assertRefused(Function<String, SluiceClient.Builder> builder) {
    List<String> clients = new CopyOnWriteArrayList<>();
    try (FakeHttpServer server = FakeHttpServer.startMutualTls(serverTls, answering(clients))) {
      SluiceClient client = builder.apply(server.url()).build();
      assertThatThrownBy(client::health).isInstanceOf(ConnectionException.class);
      try (AckChannel channel = client.jobs().ackChannel()) {
        assertThatThrownBy(() -> channel.ackAll(List.of("a")))
            .isInstanceOf(ConnectionException.class);
      }
      assertThat(server.requests()).isEmpty();
      assertThat(clients).isEmpty();
    }
  }
}
