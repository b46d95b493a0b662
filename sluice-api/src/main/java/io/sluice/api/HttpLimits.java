package io.sluice.api;

/**
 * Limits and timeouts every connection of both listeners is held to. The timeouts are never
 * applied to a response in progress: a take stream, a backup or a long compaction runs as long as
 * it needs to.
 *
 * @param maxBodyBytes a larger request body is answered 413 (decided from Content-Length before
 *     the body is read, or as soon as a chunked body crosses it)
 * @param headerReadTimeoutMs a request whose head has not fully arrived this long after its first
 *     byte is dropped
 * @param idleTimeoutMs a connection with no request in progress for this long is closed
 * @param bodyReadTimeoutMs a request body that receives nothing for this long is answered 408
 * @param maxConnections open connections per listener; further ones are closed at once
 */
public record HttpLimits(long maxBodyBytes, long headerReadTimeoutMs, long idleTimeoutMs,
    long bodyReadTimeoutMs, int maxConnections) {
  /** API.md §2: request bodies of at least this size must be accepted. */
  public static final long MIN_BODY_BYTES_REQUIRED = 64L << 20;
  /** Bodies are collected into one array, so they stay well below 2 GiB. */
  public static final long MAX_BODY_BYTES_SUPPORTED = 1L << 30;
  public static final long DEFAULT_MAX_BODY_BYTES = 256L << 20;
  public static final long DEFAULT_HEADER_READ_TIMEOUT_MS = 10_000;
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 60_000;
  public static final long DEFAULT_BODY_READ_TIMEOUT_MS = 30_000;
  public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
  public static final HttpLimits DEFAULTS = new HttpLimits(DEFAULT_MAX_BODY_BYTES,
      DEFAULT_HEADER_READ_TIMEOUT_MS, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_BODY_READ_TIMEOUT_MS,
      DEFAULT_MAX_CONNECTIONS);

  public HttpLimits {
    if (maxBodyBytes < 1 || maxBodyBytes > MAX_BODY_BYTES_SUPPORTED) {
      throw new IllegalArgumentException("max body size must be from 1 byte to 1 GiB");
    }
    if (headerReadTimeoutMs < 1 || idleTimeoutMs < 1 || bodyReadTimeoutMs < 1) {
      throw new IllegalArgumentException("HTTP timeouts must be at least 1 ms");
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("max connections must be at least 1");
    }
  }
}
