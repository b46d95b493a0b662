package io.sluice.cli;

import io.sluice.api.HttpLimits;
import picocli.CommandLine.Option;

/**
 * The HTTP limit and timeout flags of {@code sluice serve}, mixed into {@link ServeCommand} and
 * checked with the other start-up checks, before anything is opened or bound. They apply to each
 * listener alike.
 */
final class ServeHttpOptions {
  @Option(names = "--max-body-size", paramLabel = "<SIZE>",
      defaultValue = "${env:SLUICE_MAX_BODY_SIZE:-256MiB}",
      description = "Largest request body accepted, from 64MiB to 1GiB; a larger one is answered"
          + " 413 (default: ${DEFAULT-VALUE}).")
  String maxBodySize;

  @Option(names = "--header-read-timeout", paramLabel = "<DURATION>",
      defaultValue = "${env:SLUICE_HEADER_READ_TIMEOUT:-10s}",
      description = "A request head not received in full within this time of its first byte is"
          + " dropped (default: ${DEFAULT-VALUE}).")
  String headerReadTimeout;

  @Option(names = "--idle-timeout", paramLabel = "<DURATION>",
      defaultValue = "${env:SLUICE_IDLE_TIMEOUT:-60s}",
      description = "A connection with no request in progress for this long is closed; open take"
          + " streams are never idle (default: ${DEFAULT-VALUE}).")
  String idleTimeout;

  @Option(names = "--body-read-timeout", paramLabel = "<DURATION>",
      defaultValue = "${env:SLUICE_BODY_READ_TIMEOUT:-30s}",
      description = "A request body that receives nothing for this long is answered 408"
          + " (default: ${DEFAULT-VALUE}).")
  String bodyReadTimeout;

  @Option(names = "--max-connections", paramLabel = "<N>",
      defaultValue = "${env:SLUICE_MAX_CONNECTIONS:-10000}",
      description = "Open connections per listener; further ones are closed at once"
          + " (default: ${DEFAULT-VALUE}).")
  String maxConnections;

  /**
   * The limits these flags give.
   *
   * @throws ServeCommand.StartupException naming the flag at fault
   */
  HttpLimits limits() {
    return new HttpLimits(maxBodyBytes(), timeoutMs(headerReadTimeout, "--header-read-timeout"),
        timeoutMs(idleTimeout, "--idle-timeout"), timeoutMs(bodyReadTimeout, "--body-read-timeout"),
        connections());
  }

  private long maxBodyBytes() {
    return ServeOptionValues.bytes(maxBodySize, "--max-body-size",
        HttpLimits.MIN_BODY_BYTES_REQUIRED, HttpLimits.MAX_BODY_BYTES_SUPPORTED,
        "from 64MiB, the body size the API must accept, to 1GiB");
  }

  private static long timeoutMs(String value, String option) {
    return ServeOptionValues.durationMs(value, option, 1, "a duration of at least 1ms");
  }

  private int connections() {
    return (int) ServeOptionValues.integer(maxConnections, "--max-connections", 1,
        Integer.MAX_VALUE);
  }
}
