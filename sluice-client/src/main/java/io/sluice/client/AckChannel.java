package io.sluice.client;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * {@code POST /jobs/success} over one kept-alive connection of the worker transport, reopened
 * when it breaks. An ack is {@link #begin begun} (written) and {@link #finish finished} (its
 * answer read), possibly by two threads: a handler thread writes the batch it completed at once,
 * and the answer is read later by the ack sender owning the channel or by the thread writing the
 * next batch on it. One thread at a time uses a channel; whoever hands it over does so under a
 * lock.
 */
final class AckChannel implements AutoCloseable {
  private final HttpTransport transport;
  private final String path;
  private final Function<HttpTransport.Reply, List<String>> notFound;
  private volatile Http1Connection connection;
  /** The base URL {@link #connection} was opened to. */
  private volatile String connectedTo;
  private volatile boolean aborted;

  /** The ack begun and not yet finished. */
  private byte[] body;
  private boolean written;
  private boolean reused;
  private IOException writeFailure;

  AckChannel(HttpTransport transport, String path,
      Function<HttpTransport.Reply, List<String>> notFound) {
    this.transport = transport;
    this.path = path;
    this.notFound = notFound;
  }

  /** True once a connection is open: a {@link #begin} then only writes, it never connects. */
  boolean connected() {
    return connection != null;
  }

  /**
   * True when the answer to the ack begun has started to arrive: reading it then does not wait on
   * the network (unless for the rest of it).
   */
  boolean answerArrived() {
    Http1Connection open = connection;
    return open != null && open.inputArrived();
  }

  /** True when the ack begun went out on the open connection; else {@link #finish} sends it. */
  boolean written() {
    return written;
  }

  /** Completes the jobs still in flight; returns the ids that were not. */
  List<String> ackAll(Collection<String> ids) {
    begin(ids);
    return finish();
  }

  /**
   * Writes the ack of {@code ids} on the open connection; never connects and never throws for a
   * broken connection: {@link #finish} then connects, reports the failure or sends again.
   */
  void begin(Collection<String> ids) {
    body = transport.codec().encodeIds(transport.format(), ids);
    written = false;
    writeFailure = null;
    reused = connection != null;
    if (!reused || aborted) {
      return;
    }
    try {
      write(body);
      written = true;
    } catch (IOException e) {
      writeFailure = e;
    }
  }

  /** Reads the answer to the ack begun; returns the ids that were no longer in flight. */
  List<String> finish() {
    try {
      if (writeFailure != null) {
        throw writeFailure;
      }
      if (!written) {
        write(body);
      }
      return answer(read());
    } catch (IOException first) {
      close();
      if (!reused) {
        throw new ConnectionException("POST " + path, first);
      }
      // The server may close a kept-alive connection while it idles; acks are safe to repeat
      // (a job acked twice is reported as not found, and nothing else happens).
      try {
        write(body);
        return answer(read());
      } catch (IOException second) {
        close();
        throw new ConnectionException("POST " + path, second);
      }
    } finally {
      forgetBegun();
    }
  }

  /**
   * As {@link #finish}, for a handler or the take thread, which must not wait on the network
   * beyond reading an answer that has started to arrive: it never connects, sends again or
   * follows a leader, and throws instead, the ack then to be sent again with {@link #ackAll}.
   */
  List<String> finishWithoutResending() {
    String what = "POST " + path;
    try {
      if (!written) {
        throw new ConnectionException(what,
            writeFailure != null ? writeFailure : new IOException("ack not written"));
      }
      HttpTransport.Reply reply = read();
      if (transport.leaderToFollow(reply, connectedTo, path, what) != null) {
        throw new ConnectionException(what, new IOException("answered by a node not the leader"));
      }
      return notFound.apply(reply);
    } catch (IOException e) {
      close();
      throw new ConnectionException(what, e);
    } finally {
      forgetBegun();
    }
  }

  private void forgetBegun() {
    body = null;
    written = false;
    writeFailure = null;
  }

  /**
   * Judges the answer; a cluster node that is not the leader and names it has the ack sent again
   * to the leader, which later acks go to as well (acks are safe to repeat).
   */
  private List<String> answer(HttpTransport.Reply reply) throws IOException {
    String what = "POST " + path;
    for (int hops = 0; ; ) {
      String leader = transport.leaderToFollow(reply, connectedTo, path, what);
      if (leader == null) {
        return notFound.apply(reply);
      }
      hops = transport.hop(hops, what, reply, leader);
      close();
      transport.adopt(leader);
      write(body);
      reply = read();
    }
  }

  private void write(byte[] ack) throws IOException {
    if (aborted) {
      throw new IOException("acks aborted");
    }
    Http1Connection open = connection;
    if (open == null) {
      String to = transport.baseUrl();
      open = transport.connect(to, "POST " + path);
      connectedTo = to;
      connection = open;
    }
    String mediaType = transport.format().mediaType();
    open.send("POST", path, mediaType, mediaType, ack, transport.requestTimeout());
  }

  private HttpTransport.Reply read() throws IOException {
    Http1Connection open = connection;
    if (open == null) {
      throw new IOException("connection closed"); // by close() after a failed write
    }
    HttpTransport.Reply reply = open.receive();
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
