package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;

/**
 * A request head that a connection's guard may answer itself: an HTTP/1.1 request line with an
 * origin-form target, one {@code Host}, and no header that asks for more than a plain exchange
 * ({@code Expect}, {@code Upgrade}, {@code Transfer-Encoding}, a {@code Connection} other than
 * {@code keep-alive}). Anything unusual, such as a byte outside visible ASCII, a malformed header
 * line or a repeated {@code Content-Type} or {@code Accept}, is left to Vert.x, whose answer to it
 * stays the reference. {@link Http1Framing} has already checked the head's framing and its body
 * length.
 */
record DirectHead(HttpMethod method, String path, String query, String contentType,
    String accept) {

  /** The longest head held back for a possible direct answer; a longer one goes to Vert.x. */
  static final int MAX_BYTES = 8 * 1024;

  private static final byte[] HTTP_1_1 = "HTTP/1.1".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CONTENT_TYPE = bytes("content-type");
  private static final byte[] ACCEPT = bytes("accept");
  private static final byte[] HOST = bytes("host");
  private static final byte[] CONNECTION = bytes("connection");
  private static final byte[] CONTENT_LENGTH = bytes("content-length");
  private static final byte[] KEEP_ALIVE = bytes("keep-alive");
  private static final byte[][] REFUSED = {
      bytes("expect"), bytes("upgrade"), bytes("transfer-encoding")};
  /** RFC 9110 §5.6.2 token characters. */
  private static final boolean[] TOKEN = new boolean[128];

  static {
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TOKEN[c] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      TOKEN[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TOKEN[c] = true;
      TOKEN[Character.toUpperCase(c)] = true;
    }
  }

  /** The head in {@code buf[from, to)}, or null if Vert.x must take the request. */
  static DirectHead parse(ByteBuf buf, int from, int to) {
    // One copy, then plain array reads: a ByteBuf checks its bounds and reference count on
    // every byte read.
    byte[] head = new byte[to - from];
    buf.getBytes(from, head);
    return parse(head);
  }

  private static DirectHead parse(byte[] buf) {
    int to = buf.length;
    int i = 0;
    // Like the decoder, ASCII whitespace and control bytes before a request are skipped.
    while (i < to && buf[i] >= 0 && (buf[i] <= ' ' || buf[i] == 0x7f)) {
      i++;
    }
    int lineEnd = lineEnd(buf, i, to);
    int firstSpace = lineEnd < 0 ? -1 : indexOf(buf, i, lineEnd, (byte) ' ');
    int secondSpace = firstSpace < 0 ? -1 : indexOf(buf, firstSpace + 1, lineEnd, (byte) ' ');
    if (secondSpace < 0 || !tokenAt(buf, i, firstSpace) || buf[firstSpace + 1] != '/'
        || !equalAt(buf, secondSpace + 1, lineEnd, HTTP_1_1)
        || !targetAt(buf, firstSpace + 1, secondSpace)) {
      return null;
    }
    String method = ascii(buf, i, firstSpace - i);
    String target = ascii(buf, firstSpace + 1, secondSpace - firstSpace - 1);
    String contentType = null;
    String accept = null;
    boolean host = false;
    boolean contentLength = false;
    // Every line ends with CR LF (lineEnd), so the next one starts two bytes after its end.
    for (i = lineEnd + 2; i < to; ) {
      int end = lineEnd(buf, i, to);
      if (end < 0) {
        return null;
      }
      if (end == i) {
        return host ? of(method, target, contentType, accept) : null;
      }
      int colon = indexOf(buf, i, end, (byte) ':');
      if (colon <= i || !tokenAt(buf, i, colon)) {
        return null;
      }
      int valueFrom = colon + 1;
      int valueTo = end;
      while (valueFrom < valueTo && isBlank(buf[valueFrom])) {
        valueFrom++;
      }
      while (valueTo > valueFrom && isBlank(buf[valueTo - 1])) {
        valueTo--;
      }
      if (!visibleAt(buf, valueFrom, valueTo)) {
        return null;
      }
      if (nameIs(buf, i, colon, CONTENT_TYPE)) {
        if (contentType != null) {
          return null;
        }
        contentType = ascii(buf, valueFrom, valueTo - valueFrom);
      } else if (nameIs(buf, i, colon, ACCEPT)) {
        if (accept != null) {
          return null;
        }
        accept = ascii(buf, valueFrom, valueTo - valueFrom);
      } else if (nameIs(buf, i, colon, HOST)) {
        if (host) {
          return null;
        }
        host = true;
      } else if (nameIs(buf, i, colon, CONTENT_LENGTH)) {
        // The framing reads a repeated or listed equal length as one; the decoder refuses it.
        if (contentLength || indexOf(buf, valueFrom, valueTo, (byte) ',') >= 0) {
          return null;
        }
        contentLength = true;
      } else if (nameIs(buf, i, colon, CONNECTION)) {
        if (!nameIs(buf, valueFrom, valueTo, KEEP_ALIVE)) {
          return null;
        }
      } else {
        for (byte[] refused : REFUSED) {
          if (nameIs(buf, i, colon, refused)) {
            return null;
          }
        }
      }
      i = end + 2;
    }
    // No blank line: not a whole head.
    return null;
  }

  private static DirectHead of(String method, String target, String contentType, String accept) {
    int question = target.indexOf('?');
    return new DirectHead(HttpMethod.valueOf(method),
        question < 0 ? target : target.substring(0, question),
        question < 0 ? null : target.substring(question + 1), contentType, accept);
  }

  private static byte[] bytes(String lowerCase) {
    return lowerCase.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Where the line starting at {@code from} ends, before its CR LF; -1 if it does not end there
   * or ends with a bare LF, which the decoder refuses.
   */
  private static int lineEnd(byte[] buf, int from, int to) {
    int lf = indexOf(buf, from, to, (byte) '\n');
    return lf > from && buf[lf - 1] == '\r' ? lf - 1 : -1;
  }

  /** The first index of {@code b} in {@code buf[from, to)}, or -1. */
  private static int indexOf(byte[] buf, int from, int to, byte b) {
    for (int i = from; i < to; i++) {
      if (buf[i] == b) {
        return i;
      }
    }
    return -1;
  }

  private static String ascii(byte[] buf, int from, int length) {
    return new String(buf, from, length, StandardCharsets.ISO_8859_1);
  }

  private static boolean isBlank(byte b) {
    return b == ' ' || b == '\t';
  }

  private static boolean tokenAt(byte[] buf, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      byte b = buf[i];
      if (b < 0 || !TOKEN[b]) {
        return false;
      }
    }
    return true;
  }

  /** A request target: visible ASCII only, at least one byte, no fragment. */
  private static boolean targetAt(byte[] buf, int from, int to) {
    if (from >= to) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (buf[i] <= ' ' || buf[i] == 0x7f || buf[i] == '#') {
        return false;
      }
    }
    return true;
  }

  /** Only visible ASCII, spaces and tabs. */
  private static boolean visibleAt(byte[] buf, int from, int to) {
    for (int i = from; i < to; i++) {
      byte b = buf[i];
      if ((b < ' ' && b != '\t') || b == 0x7f) {
        return false;
      }
    }
    return true;
  }

  private static boolean equalAt(byte[] buf, int from, int to, byte[] expected) {
    if (to - from != expected.length) {
      return false;
    }
    for (int i = 0; i < expected.length; i++) {
      if (buf[from + i] != expected[i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code buf[from, to)} is {@code lowerCase}, ignoring ASCII case. */
  private static boolean nameIs(byte[] buf, int from, int to, byte[] lowerCase) {
    if (to - from != lowerCase.length) {
      return false;
    }
    for (int i = 0; i < lowerCase.length; i++) {
      byte b = buf[from + i];
      if (b >= 'A' && b <= 'Z') {
        b += 'a' - 'A';
      }
      if (b != lowerCase[i]) {
        return false;
      }
    }
    return true;
  }
}
