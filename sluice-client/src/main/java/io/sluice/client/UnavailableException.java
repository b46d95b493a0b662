package io.sluice.client;

import java.time.Duration;
import java.util.Optional;

/**
 * HTTP 503: the node cannot serve the request now. In a cluster this is a node with no leader
 * elected yet, or a follower refusing a take stream; the client retries such answers on its own
 * (see {@link SluiceClient.Builder#unavailableTimeout}) and throws this once it gives up.
 */
public class UnavailableException extends ServerException {
  private final Duration retryAfter;
  private final String leader;

  public UnavailableException(int status, String serverMessage, String request,
      Duration retryAfter, String leader) {
    super(status, serverMessage, request);
    this.retryAfter = retryAfter;
    this.leader = leader;
  }

  /** The answer's {@code Retry-After}, when it had a usable one. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** The leader's base URL named by the answer's body, when it named one. */
  public Optional<String> leader() {
    return Optional.ofNullable(leader);
  }
}
