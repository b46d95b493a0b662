package io.sluice.cli;

import io.sluice.api.ApiConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Finds a busy port before anything is opened or bound (CLI.md §2.2), so a start that cannot
 * listen fails at once and leaves no listener behind. The real bind may still lose a race to
 * another process; the server then closes what it had bound.
 */
final class PortCheck {
  private PortCheck() {}

  static void free(ApiConfig api) {
    if (api.adminEnabled()) {
      free(api.adminHost(), api.adminPort(), "--admin-port");
    }
    free(api.host(), api.port(), "--port");
    if (api.adminEnabled() && api.port() != 0 && api.port() == api.adminPort()
        && api.host().equals(api.adminHost())) {
      throw new ServeCommand.StartupException("--port and --admin-port are both " + api.port()
          + " on " + api.host());
    }
  }

  private static void free(String host, int port, String option) {
    if (port == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new ServeCommand.StartupException("cannot listen on " + host + ":" + port + " ("
          + option + "): " + e.getMessage());
    }
  }
}
