package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One HTTP/1.1 connection written and read byte for byte, for requests no well-behaved client
 * sends. Every read is bounded by {@link ServerFixture#TIMEOUT} unless a call says otherwise.
 */
final class RawHttp implements AutoCloseable {
  /** A complete response. */
  record Response(int status, Map<String, String> headers, byte[] body) {
    JsonNode json() {
      try {
        return ServerFixture.JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("unparsable body (status " + status + "): "
            + new String(body, StandardCharsets.UTF_8), e);
      }
    }

    /** Asserts a JSON error body, {@code {"error": "..."}}, and returns its message. */
    String error() {
      assertThat(headers.get("content-type")).isEqualTo("application/json");
      JsonNode error = json().get("error");
      assertThat(error).as("error member").isNotNull();
      assertThat(json().size()).as("members of %s", json()).isEqualTo(1);
      return error.textValue();
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RawHttp(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  static RawHttp connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port),
        (int) ServerFixture.TIMEOUT.toMillis());
    socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
    return new RawHttp(socket);
  }

  RawHttp send(String ascii) throws IOException {
    return send(ascii.getBytes(StandardCharsets.ISO_8859_1));
  }

  RawHttp send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  /** Reads one response; its body framed by Content-Length or chunked encoding. */
  Response read() throws IOException {
    Response head = readHead();
    Map<String, String> headers = head.headers();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      for (byte[] chunk = readChunk(); chunk.length > 0; chunk = readChunk()) {
        body.write(chunk);
      }
      line();
    } else if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    }
    return new Response(head.status(), headers, body.toByteArray());
  }

  /** Reads the status line and headers of a response, leaving its body to be read. */
  Response readHead() throws IOException {
    String statusLine = line();
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new HashMap<>();
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          h.substring(colon + 1).trim());
    }
    return new Response(status, headers, new byte[0]);
  }

  /**
   * The next chunk of a chunked response body, without its CRLF; empty for the last chunk, whose
   * trailer section is left unread.
   */
  byte[] readChunk() throws IOException {
    int size = Integer.parseInt(line().split(";")[0].trim(), 16);
    if (size == 0) {
      return new byte[0];
    }
    byte[] data = in.readNBytes(size);
    line();
    return data;
  }

  /**
   * Whether the server closes the connection within {@code timeout}, sending nothing more: true
   * on end of stream or reset, false if it stays open.
   */
  boolean closedWithin(Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      int b = in.read();
      assertThat(b).as("no byte after the last response").isEqualTo(-1);
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    } finally {
      socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      bytes.write(b);
    }
    if (b < 0) {
      throw new EOFException("connection closed mid-response");
    }
    String text = bytes.toString(StandardCharsets.ISO_8859_1);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
