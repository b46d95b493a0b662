package io.sluice.cli.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.CliRunner;
import io.sluice.cli.crash.SluiceProcess;
import io.sluice.cli.crash.TakeReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTPS and mutual TLS on the real server process (CLI.md §8), with certificates written by
 * {@code sluice tls}: HTTP/1.1 and HTTP/2 over ALPN, TLS 1.2 and 1.3, a take stream and acks,
 * refused clients, and an admin listener with a certificate of its own.
 */
class TlsServerProcessTest {
  private static final Duration START = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private final List<SluiceProcess> servers = new ArrayList<>();
  private TlsFiles files;

  @BeforeEach
  void writeCertificates() throws Exception {
    files = TlsFiles.init(dir.resolve("tls"), "worker");
  }

  @AfterEach
  void stopServers() {
    servers.forEach(SluiceProcess::forceStop);
  }

  private SluiceProcess serve(SSLContext testClient, String... serveArgs) throws Exception {
    List<String> args = new ArrayList<>(List.of("--warm-up-jobs", "0"));
    args.addAll(List.of(serveArgs));
    SluiceProcess server = SluiceProcess.start(dir.resolve("root"), dir.resolve("server.log"),
        START, List.of(), args, testClient);
    servers.add(server);
    return server;
  }

  private SluiceProcess serveTls(SSLContext testClient) throws Exception {
    return serve(testClient, "--tls-cert", files.serverCert().toString(),
        "--tls-key", files.serverKey().toString());
  }

  private SluiceProcess serveMutualTls() throws Exception {
    return serve(files.clientContext("worker"), "--tls-cert", files.serverCert().toString(),
        "--tls-key", files.serverKey().toString(),
        "--tls-client-ca", files.caCert().toString());
  }

  /** Plain HTTP on the primary listener; the admin one requires certificates of {@code admin}. */
  private SluiceProcess serveAdminMutualTls(TlsFiles admin) throws Exception {
    return serve(null,
        "--admin-tls-cert", admin.serverCert().toString(),
        "--admin-tls-key", admin.serverKey().toString(),
        "--admin-tls-client-ca", admin.caCert().toString());
  }

  private static HttpResponse<String> get(HttpClient client, URI uri) throws Exception {
    return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpClient client(SSLContext context, HttpClient.Version version) {
    return HttpClient.newBuilder().sslContext(context).version(version)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  @Test
  void servesHttpsOverHttp11() throws Exception {
    SluiceProcess server = serveTls(files.trustOnly());

    HttpResponse<String> reply =
        get(client(files.trustOnly(), HttpClient.Version.HTTP_1_1), server.uri("/health"));

    assertThat(reply.statusCode()).isEqualTo(200);
    assertThat(reply.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
    assertThat(reply.sslSession()).isPresent();
    assertThat(server.output()).contains("listening on https://127.0.0.1:" + server.port()
        + " (primary, TLS)");
  }

  @Test
  void negotiatesHttp2ThroughAlpn() throws Exception {
    SluiceProcess server = serveTls(files.trustOnly());

    HttpResponse<String> reply =
        get(client(files.trustOnly(), HttpClient.Version.HTTP_2), server.uri("/version"));

    assertThat(reply.statusCode()).isEqualTo(200);
    assertThat(reply.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(JSON.readTree(reply.body()).get("version").asText()).isEqualTo("0.7.0");
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void acceptsTls12And13(String protocol) throws Exception {
    SluiceProcess server = serveTls(files.trustOnly());
    SSLParameters only = new SSLParameters();
    only.setProtocols(new String[] {protocol});
    HttpClient client = HttpClient.newBuilder().sslContext(files.trustOnly())
        .sslParameters(only).version(HttpClient.Version.HTTP_1_1).build();

    HttpResponse<String> reply = get(client, server.uri("/health"));

    assertThat(reply.statusCode()).isEqualTo(200);
    assertThat(reply.sslSession().orElseThrow().getProtocol()).isEqualTo(protocol);
  }

  @Test
  void aPlainHttpRequestToTheTlsPortGetsNoAnswer() throws Exception {
    SluiceProcess server = serveTls(files.trustOnly());
    HttpClient plain = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    assertThatThrownBy(() -> get(plain,
        URI.create("http://127.0.0.1:" + server.port() + "/health")))
        .isInstanceOf(IOException.class);
  }

  @Test
  void aTakeStreamAndItsAcksWorkOverMutualTls() throws Exception {
    SluiceProcess server = serveMutualTls();
    HttpResponse<String> enqueued = server.post("/jobs",
        "{\"type\":\"t\",\"queue\":\"secure\",\"payload\":{\"n\":1}}");
    assertThat(enqueued.statusCode()).isEqualTo(201);
    String id = JSON.readTree(enqueued.body()).get("id").asText();

    try (TakeReader take = new TakeReader(server, "queue=secure&prefetch=1")) {
      assertThat(take.status(Duration.ofSeconds(10))).isEqualTo(200);
      JsonNode job = take.poll(Duration.ofSeconds(10));
      assertThat(job).isNotNull();
      assertThat(job.get("id").asText()).isEqualTo(id);
      assertThat(job.get("payload").get("n").asInt()).isEqualTo(1);

      assertThat(server.post("/jobs/" + id + "/success", "").statusCode()).isEqualTo(204);
    }
    assertThat(server.get("/jobs/" + id).statusCode()).isEqualTo(404);
  }

  @Test
  void mutualTlsRefusesAClientWithoutACertificate() throws Exception {
    SluiceProcess server = serveMutualTls();

    assertThatThrownBy(() ->
        get(client(files.trustOnly(), HttpClient.Version.HTTP_1_1), server.uri("/health")))
        .isInstanceOf(IOException.class);
    assertThat(get(server.http(), server.uri("/health")).statusCode()).isEqualTo(200);
  }

  @Test
  void mutualTlsRefusesACertificateSignedByAnotherCa() throws Exception {
    TlsFiles stranger = TlsFiles.init(dir.resolve("other-tls"), "worker");
    SluiceProcess server = serveMutualTls();
    SSLContext strangerClient = TlsFiles.context(files.caCert(),
        stranger.clientCert("worker"), stranger.clientKey("worker"));

    assertThatThrownBy(() ->
        get(client(strangerClient, HttpClient.Version.HTTP_1_1), server.uri("/health")))
        .isInstanceOf(IOException.class);
  }

  @Test
  void theAdminListenerUsesItsOwnCertificateAndTheCommandLineIsIndependent() throws Exception {
    TlsFiles admin = TlsFiles.init(dir.resolve("admin-tls"), "operator");
    SluiceProcess server = serveAdminMutualTls(admin);
    URI adminHealth = URI.create("https://127.0.0.1:" + server.adminPort() + "/health");

    assertThat(get(client(admin.clientContext("operator"), HttpClient.Version.HTTP_1_1),
        adminHealth).statusCode()).isEqualTo(200);
    assertThatThrownBy(() -> get(client(files.clientContext("worker"),
        HttpClient.Version.HTTP_1_1), adminHealth)).isInstanceOf(IOException.class);
    assertThat(server.get("/health").statusCode()).as("primary stays plain HTTP").isEqualTo(200);
  }

  @Test
  void theDashboardAndItsApiAreServedOnlyToAClientWithTheAdminCertificate() throws Exception {
    TlsFiles admin = TlsFiles.init(dir.resolve("admin-tls"), "operator");
    SluiceProcess server = serveAdminMutualTls(admin);
    String base = "https://127.0.0.1:" + server.adminPort();
    HttpClient operator = client(admin.clientContext("operator"), HttpClient.Version.HTTP_1_1);

    HttpResponse<String> page = get(operator, URI.create(base + "/"));
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(
        type -> assertThat(type).startsWith("text/html"));
    assertThat(get(operator, URI.create(base + "/api/budgets")).body())
        .isEqualTo("{\"budgets\":[]}");
    assertThatThrownBy(() -> get(client(admin.trustOnly(), HttpClient.Version.HTTP_1_1),
        URI.create(base + "/"))).isInstanceOf(IOException.class);
  }

  @Test
  void backupAndCompactTalkToAnAdminListenerThatRequiresAClientCertificate() throws Exception {
    TlsFiles admin = TlsFiles.init(dir.resolve("admin-tls"), "operator");
    SluiceProcess server = serveAdminMutualTls(admin);
    String url = "https://127.0.0.1:" + server.adminPort();
    String[] tls = {"--ca-cert", admin.caCert().toString(),
        "--client-cert", admin.clientCert("operator").toString(),
        "--client-key", admin.clientKey("operator").toString()};
    Path archive = dir.resolve("backup.tar.gz");

    CliRunner.Result backup = CliRunner.sluice(concat(
        new String[] {"backup", "--url", url}, tls, new String[] {archive.toString()}));
    CliRunner.Result compact = CliRunner.sluice(concat(
        new String[] {"compact", "--root-dir", dir.toString(), "--url", url}, tls));

    assertThat(backup.exitCode()).as(backup.toString()).isZero();
    assertThat(backup.out()).contains("Backup saved to " + archive);
    assertThat(archive).isNotEmptyFile();
    assertThat(compact.exitCode()).as(compact.toString()).isZero();
  }

  @Test
  void anAdminClientWithoutItsCertificateOrWithHalfAPairIsRefused() throws Exception {
    TlsFiles admin = TlsFiles.init(dir.resolve("admin-tls"), "operator");
    SluiceProcess server = serveAdminMutualTls(admin);
    String url = "https://127.0.0.1:" + server.adminPort();

    CliRunner.Result noCertificate = CliRunner.sluice("compact", "--url", url,
        "--ca-cert", admin.caCert().toString());
    CliRunner.Result halfPair = CliRunner.sluice("compact", "--url", url,
        "--ca-cert", admin.caCert().toString(),
        "--client-cert", admin.clientCert("operator").toString());
    CliRunner.Result untrusted = CliRunner.sluice("compact", "--url", url,
        "--client-cert", admin.clientCert("operator").toString(),
        "--client-key", admin.clientKey("operator").toString());

    assertThat(noCertificate.exitCode()).isEqualTo(1);
    assertThat(noCertificate.err()).startsWith("Error: cannot reach " + url);
    assertThat(halfPair.exitCode()).isEqualTo(1);
    assertThat(halfPair.err())
        .contains("Error: --client-cert and --client-key must be provided together");
    assertThat(untrusted.exitCode()).as("the JDK's trust store knows no test CA").isEqualTo(1);
  }

  private static String[] concat(String[]... parts) {
    return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream)
        .toArray(String[]::new);
  }
}
