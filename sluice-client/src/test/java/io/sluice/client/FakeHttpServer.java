package io.sluice.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A scripted HTTP/1.1 server on a loopback port for tests of the client's own connection code:
 * each accepted connection is handed to a {@link Handler} on a thread of its own, and every
 * request the handlers read is recorded with the index of the connection it came on.
 */
final class FakeHttpServer implements AutoCloseable {
  /** How long a server thread waits for the client before giving up on a connection. */
  private static final int READ_TIMEOUT_MS = 5_000;

  /** A request as it arrived: its line, headers (names lower-cased) and body. */
  record Request(int connection, String line, Map<String, String> headers,
      List<String> headerLines, byte[] body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** Serves one accepted connection. */
  interface Handler {
    void handle(Conn conn) throws Exception;
  }

  /** One accepted connection, as its handler sees it. */
  final class Conn {
    final int index;
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private Conn(int index, Socket socket) throws IOException {
      this.index = index;
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream());
      this.out = socket.getOutputStream();
    }

    /** The next request on this connection, or null when the client closed it in between. */
    Request readRequest() throws IOException {
      String line;
      try {
        line = readLine(true);
      } catch (SocketException e) {
        return null; // reset by the client between requests
      }
      if (line == null) {
        return null;
      }
      Map<String, String> headers = new LinkedHashMap<>();
      List<String> headerLines = new ArrayList<>();
      String header;
      while (!(header = readLine(false)).isEmpty()) {
        headerLines.add(header);
        int colon = header.indexOf(':');
        if (colon > 0) {
          headers.put(header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
              header.substring(colon + 1).trim());
        }
      }
      byte[] body = new byte[0];
      String length = headers.get("content-length");
      if (length != null) {
        body = in.readNBytes(Integer.parseInt(length));
        if (body.length != Integer.parseInt(length)) {
          throw new EOFException("request body cut off");
        }
      }
      Request request = new Request(index, line, Map.copyOf(headers), List.copyOf(headerLines),
          body);
      requests.add(request);
      requestQueue.add(request);
      return request;
    }

    void write(String raw) throws IOException {
      out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    }

    /** Waits until the client closes its end; true if it did within {@code timeout}. */
    boolean awaitClientClose(Duration timeout) throws IOException {
      socket.setSoTimeout((int) timeout.toMillis());
      try {
        while (in.read() >= 0) {
          // discard
        }
        return true;
      } catch (java.net.SocketTimeoutException e) {
        return false;
      } catch (SocketException e) {
        return true; // reset
      }
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }

    /** A line without its CRLF; null at a clean end of stream if {@code eofOk}. */
    private String readLine(boolean eofOk) throws IOException {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) != '\n') {
        if (b < 0) {
          if (eofOk && line.size() == 0) {
            return null;
          }
          throw new EOFException("request cut off after: " + line);
        }
        line.write(b);
      }
      String text = line.toString(StandardCharsets.ISO_8859_1);
      return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }
  }

  private final ServerSocket serverSocket;
  private final Handler handler;
  private final Thread acceptor;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger finished = new AtomicInteger();
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Request> requestQueue = new LinkedBlockingQueue<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  private final String scheme;

  private FakeHttpServer(Handler handler, ServerSocket serverSocket, String scheme)
      throws IOException {
    this(handler, serverSocket, scheme, 0);
  }

  private FakeHttpServer(Handler handler, ServerSocket serverSocket, String scheme, int port)
      throws IOException {
    this.handler = handler;
    this.serverSocket = serverSocket;
    this.scheme = scheme;
    serverSocket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    this.acceptor = new Thread(this::acceptLoop, "fake-http-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  static FakeHttpServer start(Handler handler) {
    try {
      return new FakeHttpServer(handler, new ServerSocket(), "http");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The same over TLS, with the server's key and certificate from {@code tls}. */
  static FakeHttpServer startTls(javax.net.ssl.SSLContext tls, Handler handler) {
    try {
      return new FakeHttpServer(handler, tls.getServerSocketFactory().createServerSocket(),
          "https");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The same over TLS that requires a client certificate, one {@code tls}'s trust accepts. */
  static FakeHttpServer startMutualTls(javax.net.ssl.SSLContext tls, Handler handler) {
    try {
      javax.net.ssl.SSLServerSocket socket =
          (javax.net.ssl.SSLServerSocket) tls.getServerSocketFactory().createServerSocket();
      socket.setNeedClientAuth(true);
      return new FakeHttpServer(handler, socket, "https");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Answers every request on every connection with {@code responder}'s raw response. */
  static FakeHttpServer responding(Function<Request, String> responder) {
    return start(answering(responder));
  }

  /** The same on a given loopback port (one that was free a moment ago). */
  static FakeHttpServer respondingOn(int port, Function<Request, String> responder) {
    try {
      ServerSocket socket = new ServerSocket();
      socket.setReuseAddress(true);
      return new FakeHttpServer(answering(responder), socket, "http", port);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static Handler answering(Function<Request, String> responder) {
    return conn -> {
      Request request;
      while ((request = conn.readRequest()) != null) {
        conn.write(responder.apply(request));
      }
    };
  }

  int port() {
    return serverSocket.getLocalPort();
  }

  String url() {
    return scheme + "://127.0.0.1:" + port();
  }

  /** Connections accepted so far. */
  int connections() {
    return accepted.get();
  }

  /** Connections whose handler has returned (and whose socket the server then closed). */
  int finishedConnections() {
    return finished.get();
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  /** The next request read by any handler, waiting at most {@code timeout}. */
  Request takeRequest(Duration timeout) throws InterruptedException {
    Request request = requestQueue.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (request == null) {
      throw new AssertionError("no request arrived within " + timeout);
    }
    return request;
  }

  List<Throwable> failures() {
    return List.copyOf(failures);
  }

  private void acceptLoop() {
    while (!serverSocket.isClosed()) {
      Socket socket;
      try {
        socket = serverSocket.accept();
      } catch (IOException e) {
        return; // closed
      }
      int index = accepted.getAndIncrement();
      sockets.add(socket);
      Thread thread = new Thread(() -> serve(index, socket), "fake-http-conn-" + index);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
  }

  private void serve(int index, Socket socket) {
    try {
      socket.setSoTimeout(READ_TIMEOUT_MS);
      handler.handle(new Conn(index, socket));
    } catch (Throwable e) {
      failures.add(e);
    } finally {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
      finished.incrementAndGet();
    }
  }

  @Override
  public void close() {
    try {
      serverSocket.close();
    } catch (IOException e) {
      // closing anyway
    }
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    try {
      acceptor.join(2_000);
      for (Thread thread : threads) {
        thread.join(2_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
