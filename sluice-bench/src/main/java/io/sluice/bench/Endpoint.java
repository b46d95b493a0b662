package io.sluice.bench;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;

/**
 * Where the server under test listens. Restricted to loopback: the bench is a load generator and
 * must never be pointed at another machine by accident.
 */
public record Endpoint(String host, int port) {

  static Endpoint parse(String url) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      throw new BenchFailure("bad --url '" + url + "': " + e.getMessage());
    }
    if (!"http".equalsIgnoreCase(uri.getScheme())) {
      throw new BenchFailure("--url must be http://host:port, got '" + url + "'");
    }
    String host = uri.getHost();
    if (host == null) {
      throw new BenchFailure("--url has no host: '" + url + "'");
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = uri.getPort() == -1 ? 80 : uri.getPort();
    requireLoopback(host);
    return new Endpoint(host, port);
  }

  public static Endpoint loopback(int port) {
    return new Endpoint("127.0.0.1", port);
  }

  public String url() {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static void requireLoopback(String host) {
    try {
      for (InetAddress a : InetAddress.getAllByName(host)) {
        if (!a.isLoopbackAddress()) {
          throw new BenchFailure("refusing non-loopback target " + host + " (" + a.getHostAddress() + ")");
        }
      }
    } catch (UnknownHostException e) {
      throw new BenchFailure("cannot resolve --url host '" + host + "'");
    }
  }
}
