package io.sluice.api;

/**
 * Listener addresses, TLS and stream settings.
 *
 * @param adminPort ignored when {@code adminEnabled} is false
 * @param heartbeatMs idle time after which a take stream gets a heartbeat frame
 * @param tls the primary listener's TLS files, or null for plain HTTP (and h2c)
 * @param adminTls the admin listener's, configured independently
 * @param limits request size, timeouts and connection count, the same for both listeners
 */
public record ApiConfig(
    String host, int port, boolean adminEnabled, String adminHost, int adminPort,
    long heartbeatMs, int eventLoops, TlsSettings tls, TlsSettings adminTls, HttpLimits limits) {
  public static final long DEFAULT_HEARTBEAT_MS = 3000;

  /** With the default HTTP limits. */
  public ApiConfig(String host, int port, boolean adminEnabled, String adminHost, int adminPort,
      long heartbeatMs, int eventLoops, TlsSettings tls, TlsSettings adminTls) {
    this(host, port, adminEnabled, adminHost, adminPort, heartbeatMs, eventLoops, tls, adminTls,
        HttpLimits.DEFAULTS);
  }

  /** Both listeners on plain HTTP. */
  public ApiConfig(String host, int port, boolean adminEnabled, String adminHost, int adminPort,
      long heartbeatMs, int eventLoops) {
    this(host, port, adminEnabled, adminHost, adminPort, heartbeatMs, eventLoops, null, null);
  }

  public ApiConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be between 0 and 65535");
    }
    if (adminPort < 0 || adminPort > 65535) {
      throw new IllegalArgumentException("admin port must be between 0 and 65535");
    }
    if (heartbeatMs < 1) {
      throw new IllegalArgumentException("heartbeat interval must be at least 1 ms");
    }
    if (eventLoops < 1) {
      throw new IllegalArgumentException("event loops must be at least 1");
    }
    if (limits == null) {
      throw new IllegalArgumentException("HTTP limits are required");
    }
  }
}
