package io.sluice.client;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One blocking HTTP/1.1 connection to the server, kept alive between exchanges: the worker's
 * transport for its take stream and its acks. Those two paths carry every job, and the JDK
 * {@code HttpClient} costs several times more CPU per request and per streamed line (futures,
 * a selector thread between socket and reader); a worker needs only these two request shapes.
 * Not thread-safe: one thread at a time uses a connection (handed over between {@link #send} and
 * {@link #receive} only with a happens-before edge), any thread may {@link #close} it.
 */
final class Http1Connection implements AutoCloseable {
  private static final int MAX_HEAD_BYTES = 64 * 1024;
  private static final Duration LONGEST_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

  /** A response's status and the headers the worker uses, names in lower case. */
  record Head(int status, Map<String, String> headers) {
    String header(String name) {
      return headers.get(name);
    }
  }

  private final Socket socket;
  private final InputStream in;
  /** Under TLS, the TCP socket's own stream, where bytes not yet decrypted show; else null. */
  private final InputStream network;
  private final OutputStream out;
  private final String host;
  private final String basePath;
  private boolean reusable = true;
  private static final Runnable NOBODY = () -> { };
  private volatile Runnable beforeWaiting = NOBODY;
  private volatile Runnable beforeReading = NOBODY;

  /** @param plain the TCP socket under {@code socket}, or {@code socket} itself without TLS */
  private Http1Connection(Socket socket, Socket plain, String host, String basePath)
      throws IOException {
    this.socket = socket;
    this.network = plain == socket ? null : plain.getInputStream();
    this.in = new BufferedInputStream(new WaitWatch(socket.getInputStream()), 64 * 1024);
    this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
    this.host = host;
    this.basePath = basePath;
  }

  /** Connects to {@code base}'s origin; https is TLS through {@code tls}, host name checked. */
  static Http1Connection open(URI base, Duration connectTimeout, SSLSocketFactory tls)
      throws IOException {
    boolean secure = "https".equalsIgnoreCase(base.getScheme());
    int port = base.getPort() != -1 ? base.getPort() : secure ? 443 : 80;
    String hostName = base.getHost().startsWith("[")
        ? base.getHost().substring(1, base.getHost().length() - 1)
        : base.getHost();
    Socket plain = new Socket();
    Socket socket = plain;
    try {
      socket.setTcpNoDelay(true);
      int connectMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
      socket.connect(new InetSocketAddress(hostName, port), connectMillis);
      if (secure) {
        socket.setSoTimeout(connectMillis); // a server that accepts but never answers the hello

        SSLSocket ssl = (SSLSocket) tls.createSocket(socket, hostName, port, true);
        SSLParameters parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(parameters);
        ssl.startHandshake();
        socket = ssl;
      }
      String path = base.getRawPath() == null ? "" : base.getRawPath();
      return new Http1Connection(socket, plain,
          base.getPort() == -1 ? base.getHost() : base.getHost() + ":" + port,
          path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Runs {@code listener} on the reading thread whenever everything received so far has been
   * read and a read is about to wait for the network.
   */
  void beforeWaiting(Runnable listener) {
    beforeWaiting = listener;
  }

  /**
   * Runs {@code listener} on the reading thread whenever everything read so far has been used
   * and a read may wait: before {@link #beforeWaiting}'s listener, and also under TLS when the
   * network holds bytes that do not yet make a whole record.
   */
  void beforeReading(Runnable listener) {
    beforeReading = listener;
  }

  /**
   * True when some of the next answer has arrived, so that reading it does not wait on the
   * network (unless for the rest of it); true too when the socket cannot say, so that the read
   * reports what is wrong.
   */
  boolean inputArrived() {
    try {
      return in.available() > 0 || network != null && network.available() > 0;
    } catch (IOException e) {
      return true;
    }
  }

  /** True while the server has not asked to close and no exchange broke off half-way. */
  boolean reusable() {
    return reusable && !socket.isClosed();
  }

  /**
   * Sends a request and reads the whole response, waiting at most {@code timeout} for each
   * read. {@code body} may be null.
   */
  HttpTransport.Reply exchange(String method, String target, String accept, String contentType,
      byte[] body, Duration timeout) throws IOException {
    send(method, target, accept, contentType, body, timeout);
    return receive();
  }

  /**
   * The first half of {@link #exchange}: writes the request, so that another thread may then
   * {@link #receive} its response (the caller hands the connection over). Each read of the
   * response waits at most {@code timeout}.
   */
  void send(String method, String target, String accept, String contentType, byte[] body,
      Duration timeout) throws IOException {
    reusable = false; // until the response has been read to its end
    socket.setSoTimeout(timeoutMillis(timeout));
    writeRequest(method, target, accept, contentType, body, null);
  }

  /** The second half of {@link #exchange}: reads the whole response to the request sent. */
  HttpTransport.Reply receive() throws IOException {
    Head head = readHead();
    byte[] content;
    try (InputStream bodyStream = body(head)) {
      content = bodyStream.readAllBytes();
    }
    reusable = !"close".equalsIgnoreCase(head.header("connection"))
        && (head.header("content-length") != null || isChunked(head)
            || head.status() == 204 || head.status() == 304);
    return new HttpTransport.Reply(head.status(), head.header("content-type"), content,
        head.header("location"), head.header("retry-after"));
  }

  /**
   * Sends a GET and returns once the response head arrived (within {@code headTimeout}, or the
   * connection is closed); the body is then read without a timeout. The connection is the
   * stream's from then on.
   */
  Head openStream(String target, String accept, String workerId, Duration headTimeout)
      throws IOException {
    reusable = false;
    if (network != null) {
      // Under TLS the handshake already read with a timeout, so nothing is saved.
      socket.setSoTimeout(timeoutMillis(headTimeout));
      writeRequest("GET", target, accept, null, null, workerId);
      Head head = readHead();
      socket.setSoTimeout(0);
      return head;
    }
    HeadDeadlines.Deadline deadline = HeadDeadlines.start(socket, timeoutMillis(headTimeout));
    Head head;
    try {
      writeRequest("GET", target, accept, null, null, workerId);
      head = readHead();
    } catch (IOException e) {
      throw deadline.met() ? e : headOverdue(headTimeout);
    } catch (RuntimeException | Error e) {
      deadline.met();
      throw e;
    }
    if (!deadline.met()) {
      throw headOverdue(headTimeout);
    }
    return head;
  }

  private static SocketTimeoutException headOverdue(Duration timeout) {
    return new SocketTimeoutException("no response head within " + timeoutMillis(timeout) + " ms");
  }

  /** The body of the response whose head was just read: chunked, sized, or up to the close. */
  InputStream body(Head head) throws IOException {
    if (head.status() == 204 || head.status() == 304) {
      return InputStream.nullInputStream();
    }
    if (isChunked(head)) {
      return new ChunkedInputStream(in);
    }
    String length = head.header("content-length");
    if (length != null) {
      long size;
      try {
        size = Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        throw new IOException("bad Content-Length: " + length);
      }
      if (size < 0) {
        throw new IOException("bad Content-Length: " + length);
      }
      return new SizedInputStream(in, size);
    }
    return in;
  }

  @Override
  public void close() {
    reusable = false;
    try {
      socket.close();
    } catch (IOException e) {
      // Nothing more to send or read either way.
    }
  }

  private void writeRequest(String method, String target, String accept, String contentType,
      byte[] body, String workerId) throws IOException {
    StringBuilder head = new StringBuilder(160)
        .append(method).append(' ').append(basePath).append(target).append(" HTTP/1.1\r\n")
        .append("Host: ").append(host).append("\r\n")
        .append("Accept: ").append(accept).append("\r\n");
    if (workerId != null) {
      head.append("Worker-Id: ").append(headerValue(workerId)).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n")
          .append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (body != null) {
      out.write(body);
    }
    out.flush();
  }

  private static String headerValue(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        throw new IllegalArgumentException("header value must be printable ASCII: " + value);
      }
    }
    return value;
  }

  private Head readHead() throws IOException {
    while (true) {
      String statusLine = readLine();
      if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
        throw new IOException("not an HTTP/1.1 response: " + statusLine);
      }
      int status;
      try {
        status = Integer.parseInt(statusLine.substring(9, 12));
      } catch (NumberFormatException e) {
        throw new IOException("bad status line: " + statusLine);
      }
      Map<String, String> headers = new HashMap<>();
      String line;
      while (!(line = readLine()).isEmpty()) {
        int colon = line.indexOf(':');
        if (colon > 0) {
          headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
              line.substring(colon + 1).trim());
        }
      }
      if (status >= 200) {
        return new Head(status, headers);
      }
      // An interim 1xx response: its real one follows.
    }
  }

  private String readLine() throws IOException {
    return BodyInputStream.readLine(in, MAX_HEAD_BYTES, "connection closed by the server",
        "response header line too long");
  }

  private static boolean isChunked(Head head) {
    String coding = head.header("transfer-encoding");
    return coding != null && coding.toLowerCase(Locale.ROOT).contains("chunked");
  }

  private static int timeoutMillis(Duration timeout) {
    if (timeout.compareTo(LONGEST_TIMEOUT) >= 0) {
      return Integer.MAX_VALUE; // toMillis() would overflow for the longest durations
    }
    return (int) Math.max(1, timeout.toMillis());
  }

  /**
   * The socket's input, which the buffer above reads only once it is empty: a read finding
   * nothing available is about to wait. Under TLS the network's bytes are checked too, since the
   * TLS layer counts only what it has already decrypted.
   */
  private final class WaitWatch extends FilterInputStream {
    WaitWatch(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      noteWait();
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len > 0) {
        noteWait();
      }
      return in.read(b, off, len);
    }

    private void noteWait() throws IOException {
      Runnable mayWait = beforeReading;
      Runnable listener = beforeWaiting;
      if ((mayWait == NOBODY && listener == NOBODY) || in.available() != 0) {
        return;
      }
      mayWait.run();
      if (listener != NOBODY && (network == null || network.available() == 0)) {
        listener.run();
      }
    }
  }

  /** Exactly {@code size} bytes of the connection, then end of stream. */
  private static final class SizedInputStream extends BodyInputStream {
    SizedInputStream(InputStream in, long size) {
      super(in, size);
    }

    @Override
    protected boolean nextSegment() {
      return false;
    }

    @Override
    protected String cutOffMessage() {
      return "response body cut off";
    }
  }
}
