package io.sluice.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends one request in the configured format and decodes the answer, turning error statuses into
 * {@link SluiceException}s.
 */
final class HttpTransport {
  /** A complete response whose status has not been judged yet. */
  record Reply(int status, String contentType, byte[] body) {
    boolean ok() {
      return status >= 200 && status < 300;
    }
  }

  private final HttpClient http;
  private final String baseUrl;
  private final URI baseUri;
  private final Duration connectTimeout;
  private final SSLSocketFactory tls;
  private final WireFormat format;
  private final Duration requestTimeout;
  private final WireCodec codec;

  HttpTransport(HttpClient http, String baseUrl, WireFormat format, Duration connectTimeout,
      Duration requestTimeout, WireCodec codec, SSLSocketFactory tls) {
    this.http = http;
    this.baseUrl = baseUrl;
    this.baseUri = URI.create(baseUrl);
    this.connectTimeout = connectTimeout;
    this.tls = tls;
    this.format = format;
    this.requestTimeout = requestTimeout;
    this.codec = codec;
  }

  WireCodec codec() {
    return codec;
  }

  WireFormat format() {
    return format;
  }

  /** Sends and decodes a successful answer into {@code type}; null {@code type} skips decoding. */
  <T> T call(String method, String pathAndQuery, Object body, JavaType type) {
    Reply reply = exchange(method, pathAndQuery, body);
    if (!reply.ok()) {
      throw failure(method, pathAndQuery, reply);
    }
    return type == null ? null : decode(method, pathAndQuery, reply, type);
  }

  <T> T call(String method, String pathAndQuery, Object body, Class<T> type) {
    return call(method, pathAndQuery, body, codec.json().constructType(type));
  }

  void call(String method, String pathAndQuery, Object body) {
    call(method, pathAndQuery, body, (JavaType) null);
  }

  /** Sends without judging the status, for the few endpoints with a meaningful error body. */
  Reply exchange(String method, String pathAndQuery, Object body) {
    try {
      return reply(http.send(build(method, pathAndQuery, body),
          HttpResponse.BodyHandlers.ofByteArray()));
    } catch (IOException e) {
      throw new ConnectionException(method + " " + pathAndQuery, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException(method + " " + pathAndQuery, e);
    }
  }

  private HttpRequest build(String method, String pathAndQuery, Object body) {
    HttpRequest.Builder request = request(pathAndQuery)
        .header("Accept", format.mediaType())
        .timeout(requestTimeout);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", format.mediaType())
          .method(method, HttpRequest.BodyPublishers.ofByteArray(codec.encode(format, body)));
    }
    return request.build();
  }

  private static Reply reply(HttpResponse<byte[]> response) {
    return new Reply(response.statusCode(),
        response.headers().firstValue("Content-Type").orElse(null), response.body());
  }

  /**
   * A new HTTP/1.1 connection of the worker transport (see {@link Http1Connection}), for
   * requests that stream or repeat at a high rate; {@code what} names the request in errors.
   */
  Http1Connection connect(String what) {
    try {
      return Http1Connection.open(baseUri, connectTimeout, tls);
    } catch (IOException e) {
      throw new ConnectionException(what, e);
    }
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  <T> T decode(String method, String pathAndQuery, Reply reply, JavaType type) {
    try {
      return codec.forContentType(reply.contentType()).readValue(reply.body(), type);
    } catch (IOException e) {
      throw new SluiceException(reply.status(), "undecodable response: " + e.getMessage(),
          method + " " + pathAndQuery, e);
    }
  }

  SluiceException failure(String method, String pathAndQuery, Reply reply) {
    return ErrorMapping.toException(reply.status(), errorMessage(reply),
        method + " " + pathAndQuery);
  }

  private String errorMessage(Reply reply) {
    if (reply.body().length > 0) {
      try {
        JsonNode error = codec.forContentType(reply.contentType()).readTree(reply.body());
        if (error != null && error.path("error").isTextual()) {
          return error.get("error").textValue();
        }
      } catch (IOException e) {
        // Not an API error body (e.g. a proxy's HTML page); fall through to the status text.
      }
    }
    return "HTTP " + reply.status();
  }

  private HttpRequest.Builder request(String pathAndQuery) {
    return HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery));
  }
}
