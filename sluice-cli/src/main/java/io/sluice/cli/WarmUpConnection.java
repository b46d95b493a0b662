package io.sluice.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * One keep-alive HTTP/1.1 connection of the warm-up's client: a request written in one piece, its
 * answer read back in full, or a streamed answer read line by line. It knows just enough of the
 * protocol for a Sluice server's answers (a {@code Content-Length} or chunked body), because the
 * warm-up exists to compile the server's code: a general client compiling its own code on the
 * same cores made the warm-up, and so the start-up, a third longer (docs/decisions.md, "A lean
 * client for the warm-up").
 *
 * <p>Every read waits at most until the warm-up's deadline, so a server that stops answering
 * cannot hold the start-up.
 */
final class WarmUpConnection implements AutoCloseable {
  /** The answer to a request: its status and body. */
  record Answer(int status, String body) {}

  private final String host;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final LongSupplier remainingMillis;
  /** Bytes left in the current chunk of a streamed answer; -1 once its last chunk was read. */
  private long chunkLeft;

  /** {@code remainingMillis} is the time left until the warm-up's deadline. */
  WarmUpConnection(String host, int port, LongSupplier remainingMillis) throws IOException {
    this.host = host;
    this.remainingMillis = remainingMillis;
    socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), timeout());
    socket.setTcpNoDelay(true);
    in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
    out = socket.getOutputStream();
  }

  /** Sends a request with a JSON body (or none) and reads its whole answer. */
  Answer send(String method, String path, String json) throws IOException {
    arm();
    writeHead(method, path, json == null ? null : json.getBytes(StandardCharsets.UTF_8), null);
    return readAnswer();
  }

  /**
   * Sends a GET whose answer is a stream of lines, and reads its head.
   *
   * @return the status; on 200 the lines follow through {@link #readLine}
   */
  int openStream(String path, String accept) throws IOException {
    arm();
    writeHead("GET", path, null, accept);
    Head head = readHead();
    if (head.status() == 200 && !head.chunked()) {
      throw new IOException("GET " + path + ": a stream must be chunked");
    }
    chunkLeft = 0;
    return head.status();
  }

  /** The next line of a streamed answer, without its end; null when the stream ended. */
  String readLine() throws IOException {
    arm();
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    while (true) {
      int b = streamByte();
      if (b < 0) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
      }
      if (b == '\n') {
        return line.toString(StandardCharsets.UTF_8);
      }
      line.write(b);
    }
  }

  /** Whether more of a streamed answer has already arrived, so a read would not wait. */
  boolean ready() throws IOException {
    return in.available() > 0;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private void writeHead(String method, String path, byte[] body, String accept)
      throws IOException {
    StringBuilder head = new StringBuilder(128).append(method).append(' ').append(path)
        .append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
    if (accept != null) {
      head.append("Accept: ").append(accept).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Type: application/json\r\nContent-Length: ").append(body.length)
          .append("\r\n");
    }
    byte[] headBytes = head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    byte[] request = headBytes;
    if (body != null) {
      request = new byte[headBytes.length + body.length];
      System.arraycopy(headBytes, 0, request, 0, headBytes.length);
      System.arraycopy(body, 0, request, headBytes.length, body.length);
    }
    out.write(request);
    out.flush();
  }

  private record Head(int status, long contentLength, boolean chunked) {}

  private Head readHead() throws IOException {
    String statusLine = asciiLine();
    if (statusLine == null || !statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 answer: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long contentLength = -1;
    boolean chunked = false;
    String line;
    while ((line = asciiLine()) != null && !line.isEmpty()) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      if (name.equals("content-length")) {
        contentLength = Long.parseLong(value);
      } else if (name.equals("transfer-encoding")) {
        chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
      }
    }
    if (line == null) {
      throw new IOException("the connection closed inside an answer's head");
    }
    return new Head(status, contentLength, chunked);
  }

  private Answer readAnswer() throws IOException {
    Head head = readHead();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (head.chunked()) {
      chunkLeft = 0;
      int b;
      while ((b = streamByte()) >= 0) {
        body.write(b);
      }
    } else if (head.contentLength() > 0) {
      body.write(in.readNBytes((int) head.contentLength()));
      if (body.size() < head.contentLength()) {
        throw new IOException("the connection closed inside an answer's body");
      }
    }
    return new Answer(head.status(), body.toString(StandardCharsets.UTF_8));
  }

  /** The next byte of a chunked body, or -1 after its last chunk (and trailers). */
  private int streamByte() throws IOException {
    if (chunkLeft < 0) {
      return -1;
    }
    if (chunkLeft == 0) {
      String sizeLine = asciiLine();
      if (sizeLine == null) {
        chunkLeft = -1;
        return -1;
      }
      int extension = sizeLine.indexOf(';');
      chunkLeft = Long.parseLong(
          (extension < 0 ? sizeLine : sizeLine.substring(0, extension)).trim(), 16);
      if (chunkLeft == 0) {
        skipTrailers();
        chunkLeft = -1;
        return -1;
      }
    }
    int b = read();
    if (b < 0) {
      throw new IOException("the connection closed inside a chunk");
    }
    if (--chunkLeft == 0) {
      // The chunk's closing line end, read now so that ready() does not take it for more data.
      String end = asciiLine();
      if (end == null || !end.isEmpty()) {
        throw new IOException("a chunk's data is not followed by its line end");
      }
    }
    return b;
  }

  /** Reads the trailer lines after a last chunk, up to the empty line that ends them. */
  private void skipTrailers() throws IOException {
    String trailer;
    do {
      trailer = asciiLine();
    } while (trailer != null && !trailer.isEmpty());
  }

  /** A CRLF- (or LF-) ended line of ASCII, without its end; null at the end of the input. */
  private String asciiLine() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      int b = read();
      if (b < 0) {
        return line.isEmpty() ? null : line.toString();
      }
      if (b == '\n') {
        int end = line.length();
        return end > 0 && line.charAt(end - 1) == '\r' ? line.substring(0, end - 1)
            : line.toString();
      }
      line.append((char) b);
    }
  }

  private int read() throws IOException {
    return in.read();
  }

  /** Bounds the reads of one call by the time left (checking per byte would cost a syscall). */
  private void arm() throws IOException {
    socket.setSoTimeout(timeout());
  }

  /** Until the deadline, at least a millisecond (0 would mean no timeout at all). */
  private int timeout() {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, remainingMillis.getAsLong()));
  }
}
