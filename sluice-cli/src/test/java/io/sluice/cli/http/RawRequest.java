package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One HTTP/1.1 request written byte for byte on a socket of its own, for request targets the JDK
 * client refuses to send (malformed escapes, raw non-ASCII bytes) and bodies of arbitrary bytes.
 */
record RawRequest(int status, String contentType, String body) {
  /** Sends {@code method target} with {@code body} (none when null) and reads the whole reply. */
  static RawRequest send(int port, String method, byte[] target, String contentType,
      byte[] body) {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes((method + " ").getBytes(StandardCharsets.US_ASCII));
    request.writeBytes(target);
    StringBuilder head = new StringBuilder(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
    if (contentType != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
    }
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    request.writeBytes(head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
    if (body != null) {
      request.writeBytes(body);
    }
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
      socket.getOutputStream().write(request.toByteArray());
      return parse(new String(readUntilClosed(socket), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Everything the server sends before it closes, or what came within {@link
   * ServerFixture#TIMEOUT} when it keeps the connection open (a take stream that was accepted).
   */
  private static byte[] readUntilClosed(Socket socket) throws IOException {
    long deadline = System.nanoTime() + ServerFixture.TIMEOUT.toNanos();
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] chunk = new byte[8192];
    int n;
    while (System.nanoTime() < deadline && (n = in.read(chunk)) >= 0) {
      received.write(chunk, 0, n);
    }
    return received.toByteArray();
  }

  static RawRequest get(int port, String target) {
    return send(port, "GET", target.getBytes(StandardCharsets.ISO_8859_1), null, null);
  }

  private static RawRequest parse(String response) {
    int headEnd = response.indexOf("\r\n\r\n");
    assertThat(headEnd).as("a complete response head in %s", response).isPositive();
    String[] lines = response.substring(0, headEnd).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    String contentType = null;
    for (String line : lines) {
      if (line.regionMatches(true, 0, "content-type:", 0, 13)) {
        contentType = line.substring(13).trim();
      }
    }
    return new RawRequest(status, contentType, response.substring(headEnd + 4));
  }

  /** The {@code error} of a JSON error body, asserting {@code status} and the body's shape. */
  String error(int expectedStatus) {
    assertThat(status).as("status of %s", this).isEqualTo(expectedStatus);
    assertThat(contentType).as("content type of %s", this).isEqualTo("application/json");
    try {
      JsonNode json = ServerFixture.JSON.readTree(body);
      assertThat(json.path("error").isTextual()).as("error member of %s", body).isTrue();
      return json.get("error").textValue();
    } catch (IOException e) {
      throw new AssertionError("unparsable error body: " + body, e);
    }
  }
}
