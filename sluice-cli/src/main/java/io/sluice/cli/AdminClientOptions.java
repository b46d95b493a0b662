package io.sluice.cli;

import io.sluice.cli.tls.PemFiles;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * The admin client options (CLI.md §9.1), mixed into every subcommand that calls the admin API,
 * and the HTTP client they describe.
 */
final class AdminClientOptions {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  @Option(names = "--url", defaultValue = "${env:SLUICE_ADMIN_URL:-http://127.0.0.1:8901}",
      description = "Admin API base URL, https://… for TLS (default: ${DEFAULT-VALUE}).")
  String url;

  /**
   * Accepted because CLI.md §1.1 makes it valid with every command; the admin commands reach the
   * server through {@code --url} and read no local directory.
   */
  @Option(names = "--root-dir", paramLabel = "<path>",
      description = "Accepted with every command (the admin commands use no local directory).")
  String rootDir;

  @Option(names = "--ca-cert", defaultValue = "${env:SLUICE_ADMIN_TLS_CA}",
      description = "CA certificate (PEM) that the admin server's certificate must chain to"
          + " (default: the JDK's trust store).")
  Path caCert;

  @Option(names = "--client-cert", defaultValue = "${env:SLUICE_ADMIN_TLS_CLIENT_CERT}",
      description = "Client certificate (PEM) for mutual TLS; requires --client-key.")
  Path clientCert;

  @Option(names = "--client-key", defaultValue = "${env:SLUICE_ADMIN_TLS_CLIENT_KEY}",
      description = "Client private key (PEM) for mutual TLS; requires --client-cert.")
  Path clientKey;

  /** The checked base URL: http or https, with a host, without a trailing slash. */
  URI baseUrl() {
    String text = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    try {
      URI uri = new URI(text);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null) {
        return uri;
      }
    } catch (URISyntaxException e) {
      // Reported below.
    }
    throw new OperatorException("invalid value for --url: '" + url
        + "' (expected http://host:port or https://host:port)");
  }

  /** An HTTP/1.1 client for the admin API; over TLS when the URL is https. */
  HttpClient httpClient() {
    HttpClient.Builder builder = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(CONNECT_TIMEOUT);
    SSLContext tls = sslContext();
    if (tls != null) {
      builder.sslContext(tls);
    }
    return builder.build();
  }

  /**
   * The admin client's TLS: null for an http URL. For https, the server must chain to
   * {@code --ca-cert} (else to the JDK's trust store), and {@code --client-cert} with
   * {@code --client-key} answer a server that asks for a client certificate.
   */
  SSLContext sslContext() {
    if ((clientCert == null) != (clientKey == null)) {
      throw new OperatorException("--client-cert and --client-key must be provided together");
    }
    if (!baseUrl().getScheme().equalsIgnoreCase("https")) {
      if (caCert != null || clientCert != null) {
        throw new OperatorException("--ca-cert, --client-cert and --client-key need an https"
            + " --url (got " + url + ")");
      }
      return null;
    }
    if (caCert == null && clientCert == null) {
      try {
        return SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new OperatorException("no TLS available for " + url + ": " + e.getMessage());
      }
    }
    return PemFiles.clientContext(caCert, clientCert, clientKey);
  }

  /** A POST of nothing to {@code path} on the admin API, without a deadline. */
  HttpRequest post(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl() + path))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
  }

  /** Sends the request; failing to get a response is {@code cannot reach <url>: …}. */
  <T> HttpResponse<T> send(HttpClient http, HttpRequest request,
      HttpResponse.BodyHandler<T> body) {
    try {
      return http.send(request, body);
    } catch (IOException e) {
      throw new OperatorException("cannot reach " + baseUrl() + ": " + reason(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OperatorException("interrupted while calling " + baseUrl());
    }
  }

  /** The first message along the causes, else what the exception's kind says. */
  static String reason(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
        return cause.getMessage();
      }
    }
    // The JDK's client reports a refused connection without a message.
    return failure instanceof ConnectException
        ? "connection refused" : failure.getClass().getSimpleName();
  }
}
