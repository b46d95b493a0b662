package io.sluice.client;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * {@code POST /jobs/success} over one kept-alive connection of the worker transport, reopened
 * when it breaks. One thread uses a channel.
 */
final class AckChannel implements AutoCloseable {
  private final HttpTransport transport;
  private final String path;
  private final Function<HttpTransport.Reply, List<String>> notFound;
  private volatile Http1Connection connection;
  private volatile boolean aborted;

  AckChannel(HttpTransport transport, String path,
      Function<HttpTransport.Reply, List<String>> notFound) {
    this.transport = transport;
    this.path = path;
    this.notFound = notFound;
  }

  /** Completes the jobs still in flight; returns the ids that were not. */
  List<String> ackAll(Collection<String> ids) {
    byte[] body = transport.codec().encode(transport.format(), new WireBodies.Ids(ids));
    boolean reused = connection != null;
    try {
      return notFound.apply(send(body));
    } catch (IOException first) {
      close();
      if (!reused) {
        throw new ConnectionException("POST " + path, first);
      }
      // The server may close a kept-alive connection while it idles; acks are safe to repeat
      // (a job acked twice is reported as not found, and nothing else happens).
      try {
        return notFound.apply(send(body));
      } catch (IOException second) {
        close();
        throw new ConnectionException("POST " + path, second);
      }
    }
  }

  private HttpTransport.Reply send(byte[] body) throws IOException {
    if (aborted) {
      throw new IOException("acks aborted");
    }
    Http1Connection open = connection;
    if (open == null) {
      open = transport.connect("POST " + path);
      connection = open;
    }
    String mediaType = transport.format().mediaType();
    HttpTransport.Reply reply = open.exchange("POST", path, mediaType, mediaType, body,
        transport.requestTimeout());
    if (!open.reusable()) {
      close();
    }
    return reply;
  }

  /**
   * From any thread: closes the connection, ending a send blocked on it, and refuses further
   * sends.
   */
  void abort() {
    aborted = true;
    Http1Connection open = connection;
    if (open != null) {
      open.close();
    }
  }

  @Override
  public void close() {
    Http1Connection open = connection;
    if (open != null) {
      open.close();
      connection = null;
    }
  }
}
