package io.sluice.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * A client for one Sluice server or cluster. Thread-safe; share one instance. The endpoints are grouped by
 * resource: {@link #jobs()}, {@link #bindings()}, {@link #budgets()} and {@link #crons()}.
 *
 * <pre>{@code
 * SluiceClient client = SluiceClient.builder("http://127.0.0.1:7890").build();
 * client.jobs().enqueue(EnqueueRequest.builder("emails", "send_email", email).build());
 * }</pre>
 *
 * <p>Failed requests throw a {@link SluiceException}: {@link NotFoundException},
 * {@link ConflictException}, {@link ValidationException}, {@link ServerException} (its
 * {@link UnavailableException} for a 503), or {@link ConnectionException} when no response
 * arrived.
 *
 * <p>Against a cluster the client follows the leader: a node that is not the leader redirects
 * ({@code 307}) or names the leader, and from then on this client sends everything there. Give
 * several nodes with {@link #builder(List)} so that a client can start while one is down.
 */
public final class SluiceClient {
  /** The API level this client is written against (API.md §8.1). */
  public static final String API_VERSION = "0.7.0";

  private final HttpTransport transport;
  private final JobsApi jobs;
  private final BindingsApi bindings;
  private final BudgetsApi budgets;
  private final CronApi crons;

  private SluiceClient(HttpTransport transport) {
    this.transport = transport;
    this.jobs = new JobsApi(transport);
    this.bindings = new BindingsApi(transport);
    this.budgets = new BudgetsApi(transport);
    this.crons = new CronApi(transport);
  }

  /** {@code baseUrl} is the server's root, e.g. {@code http://127.0.0.1:7890}. */
  public static Builder builder(String baseUrl) {
    return new Builder(List.of(Objects.requireNonNull(baseUrl, "baseUrl")));
  }

  /**
   * A client of a cluster, {@code urls} being the roots of some of its nodes (seeds), tried in
   * this order: the first is used until a node sends the client to the leader or cannot be
   * reached, when the next one is tried.
   */
  public static Builder builder(List<String> urls) {
    if (Objects.requireNonNull(urls, "urls").isEmpty()) {
      throw new IllegalArgumentException("at least one base URL is needed");
    }
    return new Builder(urls);
  }

  /**
   * The base URL requests go to now: the first seed URL, or the leader once a node sent the
   * client there.
   */
  public String currentUrl() {
    return transport.baseUrl();
  }

  public JobsApi jobs() {
    return jobs;
  }

  public BindingsApi bindings() {
    return bindings;
  }

  public BudgetsApi budgets() {
    return budgets;
  }

  public CronApi crons() {
    return crons;
  }

  /** {@code "ok"} once the server is serving. */
  public String health() {
    return transport.call("GET", "/health", null, WireBodies.Health.class).status();
  }

  /** The server's API level, {@code MAJOR.MINOR.PATCH}. */
  public String version() {
    return transport.call("GET", "/version", null, WireBodies.Version.class).version();
  }

  /**
   * Whether the server speaks an API this client understands: same major version, minor at
   * least this client's.
   */
  public boolean isCompatible() {
    int[] server = parseVersion(version());
    int[] ours = parseVersion(API_VERSION);
    return server[0] == ours[0] && server[1] >= ours[1];
  }

  /** Names of the queues that hold jobs, sorted. */
  public List<String> queues() {
    return transport.call("GET", "/queues", null, WireBodies.Queues.class).queues();
  }

  /** Deletes every cron group, job and budget. For tests and development. */
  public void reset() {
    transport.call("POST", "/reset", null);
  }

  /** The mapper that turns payload trees into handler types; register payload modules here. */
  public ObjectMapper payloadMapper() {
    return transport.codec().json();
  }

  WireCodec codec() {
    return transport.codec();
  }

  private static int[] parseVersion(String version) {
    String[] parts = version.split("\\.");
    return new int[] {Integer.parseInt(parts[0]), parts.length > 1 ? Integer.parseInt(parts[1]) : 0};
  }

  /** Connection settings; every one has a default. */
  public static final class Builder {
    private final List<String> baseUrls;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration unavailableTimeout = Duration.ofSeconds(30);
    private WireFormat format = WireFormat.JSON;
    private HttpClient.Version httpVersion = HttpClient.Version.HTTP_1_1;
    private SSLContext sslContext;
    private Path trustedCertificates;
    private Path clientCertificateChain;
    private Path clientPrivateKey;

    private Builder(List<String> baseUrls) {
      List<String> normalized = new ArrayList<>();
      for (String baseUrl : baseUrls) {
        URI parsed = URI.create(Objects.requireNonNull(baseUrl, "baseUrl"));
        if (parsed.getScheme() == null || parsed.getHost() == null) {
          throw new IllegalArgumentException("base URL needs a scheme and host: " + baseUrl);
        }
        String url =
            baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        if (!normalized.contains(url)) {
          normalized.add(url);
        }
      }
      this.baseUrls = List.copyOf(normalized);
    }

    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    /** Bounds every request; for a take stream, only the wait for its response headers. */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * How long one request keeps retrying while nodes answer {@code 503} with a
     * {@code Retry-After} and name no leader (an election in progress; default 30 s). After it,
     * the 503 is thrown as an {@link UnavailableException}; {@link Duration#ZERO} never waits.
     * The same bound applies while a node still names a leader that refuses connections (one
     * that just died, before the others notice): that is thrown as a
     * {@link ConnectionException}.
     */
    public Builder unavailableTimeout(Duration timeout) {
      if (Objects.requireNonNull(timeout, "timeout").isNegative()) {
        throw new IllegalArgumentException("unavailable timeout must not be negative");
      }
      this.unavailableTimeout = timeout;
      return this;
    }

    /** JSON (default) or MessagePack, for request and response bodies and take streams. */
    public Builder format(WireFormat format) {
      this.format = format;
      return this;
    }

    /**
     * HTTP/1.1 by default. {@code HTTP_2} negotiates h2 over TLS (ALPN); over plain
     * {@code http://} the JDK client can only try the optional {@code Upgrade: h2c}, and stays on
     * HTTP/1.1 when the server declines.
     */
    public Builder httpVersion(HttpClient.Version version) {
      this.httpVersion = version;
      return this;
    }

    /**
     * TLS settings for {@code https://} (trusted certificates, keys); the JDK's default if unset.
     * For PEM files, {@link #trustedCertificates} and {@link #clientCertificate} instead.
     */
    public Builder sslContext(SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "context");
      return this;
    }

    /**
     * Trusts, for {@code https://}, only the CA certificates in this PEM file (such as the
     * {@code ca-cert.pem} of {@code sluice tls init}) instead of the JDK's default trust store.
     * Read by {@link #build}; see {@link PemTls}.
     */
    public Builder trustedCertificates(Path caPem) {
      this.trustedCertificates = Objects.requireNonNull(caPem, "caPem");
      return this;
    }

    /**
     * Presents this client certificate to servers that ask for one (mutual TLS): a PEM chain,
     * the client's certificate first, and its unencrypted PEM private key (PKCS#8, PKCS#1 RSA or
     * SEC1 EC). Read by {@link #build}; see {@link PemTls}.
     */
    public Builder clientCertificate(Path certificateChainPem, Path privateKeyPem) {
      this.clientCertificateChain =
          Objects.requireNonNull(certificateChainPem, "certificateChainPem");
      this.clientPrivateKey = Objects.requireNonNull(privateKeyPem, "privateKeyPem");
      return this;
    }

    /**
     * Throws {@link IllegalArgumentException} for a PEM file that cannot be used, and
     * {@link IllegalStateException} when both {@link #sslContext} and PEM files are set.
     */
    public SluiceClient build() {
      SSLContext tls = tlsContext();
      HttpClient http = HttpClient.newBuilder()
          .version(httpVersion)
          .connectTimeout(connectTimeout)
          .sslContext(tls)
          .followRedirects(HttpClient.Redirect.NEVER) // HttpTransport follows the leader itself
          .executor(Runnable::run)
          .build();
      return new SluiceClient(
          new HttpTransport(http, baseUrls, format, connectTimeout, requestTimeout,
              unavailableTimeout, new WireCodec(), tls.getSocketFactory()));
    }

    private SSLContext tlsContext() {
      boolean pem = trustedCertificates != null || clientCertificateChain != null;
      if (pem && sslContext != null) {
        throw new IllegalStateException("set either sslContext(...) or the PEM files of"
            + " trustedCertificates(...) / clientCertificate(...), not both");
      }
      if (pem) {
        return PemTls.sslContext(trustedCertificates, clientCertificateChain, clientPrivateKey);
      }
      try {
        return sslContext != null ? sslContext : SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("no default TLS context", e);
      }
    }
  }
}
