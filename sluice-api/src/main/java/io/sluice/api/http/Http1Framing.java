package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.util.ByteProcessor;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Follows the framing of the HTTP/1.1 requests arriving on one connection, byte by byte and
 * without buffering them (RFC 9112): where each head ends, how long each body is, and whether the
 * client is still inside a head or a body. It refuses, before the request reaches the HTTP
 * decoder, what that decoder would accept although it is ambiguous or too large: obsolete line
 * folding, Transfer-Encoding beside Content-Length, transfer codings other than {@code chunked},
 * versions other than HTTP/1.0 and 1.1, malformed chunk framing and bodies above the limit.
 *
 * <p>Used by one connection's event loop only. Once it has refused something it consumes nothing
 * more.
 */
final class Http1Framing {
  /** Where the client is in its request stream. */
  enum Phase {
    /** Between requests (possibly inside blank lines before a request line). */
    BETWEEN,
    /** Inside a request head. */
    HEAD,
    /** Inside a request body. */
    BODY
  }

  private enum State {
    START, REQUEST_LINE, LINE_START, NAME, VALUE, HEAD_END, FIXED_BODY, CHUNK_SIZE, CHUNK_EXT,
    CHUNK_SIZE_END, CHUNK_DATA, CHUNK_DATA_CR, CHUNK_DATA_LF, TRAILER_START, TRAILER_LINE,
    TRAILER_END, REFUSED
  }

  private static final Pattern HTTP_VERSION = Pattern.compile("HTTP/\\d\\.\\d");
  private static final String CONTENT_LENGTH = "content-length";
  private static final String TRANSFER_ENCODING = "transfer-encoding";
  private static final String HTTP_1_1 = "HTTP/1.1";
  /** Longest header name kept: enough to recognise the two that frame the body. */
  private static final int NAME_CAP = TRANSFER_ENCODING.length() + 1;
  /** Longest framing header value kept; a longer one is invalid anyway. */
  private static final int VALUE_CAP = 1024;
  private static final int VERSION_CAP = 16;
  private static final int CHUNK_EXTENSION_CAP = 4096;

  private final long maxBodyBytes;
  private State state = State.START;
  private long headsCompleted;
  private HttpError refusal;
  private boolean refusedInBody;

  private final StringBuilder token = new StringBuilder();
  private final StringBuilder name = new StringBuilder();
  private final StringBuilder value = new StringBuilder();
  private boolean framingHeader;
  /** The header being read is Content-Length (else, if framing, Transfer-Encoding). */
  private boolean contentLengthHeader;
  private String version;
  private String contentLength;
  private String transferEncoding;

  /** Body bytes still expected: of a fixed-length body, or of the current chunk. */
  private long remaining;
  private long chunkSize;
  private boolean chunkSizeHasDigits;
  private int chunkExtensionLength;
  private long chunkedBodyBytes;

  /** The feed under way stops once this many heads are complete. */
  private long stopAtHeads = Long.MAX_VALUE;
  /**
   * Steps through bytes until one is refused, starts a body's bulk or, if asked, completes a
   * head.
   */
  private final ByteProcessor stepper = b -> {
    step(b);
    return state != State.REFUSED && state != State.FIXED_BODY && state != State.CHUNK_DATA
        && headsCompleted < stopAtHeads;
  };

  Http1Framing(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  /**
   * Consumes {@code buf} bytes from index {@code from} (inclusive) to {@code to} (exclusive) and
   * returns the index where it stopped: {@code to}, or the index of the byte that made it refuse
   * the request (that byte and those after it must not reach the decoder). The buffer's indexes
   * are left alone.
   */
  int feed(ByteBuf buf, int from, int to) {
    return feed(buf, from, to, false);
  }

  /**
   * Like {@link #feed}, between requests or inside a head only: stops right after the byte that
   * completes the head, or at {@code to}, or at the byte that made it refuse the request.
   */
  int feedHead(ByteBuf buf, int from, int to) {
    if (phase() == Phase.BODY) {
      throw new IllegalStateException("inside a body");
    }
    return feed(buf, from, to, true);
  }

  private int feed(ByteBuf buf, int from, int to, boolean stopAfterHead) {
    stopAtHeads = stopAfterHead ? headsCompleted + 1 : Long.MAX_VALUE;
    int i = from;
    while (i < to && state != State.REFUSED && headsCompleted < stopAtHeads) {
      if (state == State.FIXED_BODY || state == State.CHUNK_DATA) {
        int n = (int) Math.min(remaining, to - i);
        remaining -= n;
        i += n;
        if (remaining == 0) {
          state = state == State.FIXED_BODY ? State.START : State.CHUNK_DATA_CR;
        }
        continue;
      }
      // One bounds and reference-count check for the run of bytes, not one per byte.
      int stopped = buf.forEachByte(i, to - i, stepper);
      if (stopped < 0) {
        return to;
      }
      if (state == State.REFUSED) {
        return stopped;
      }
      i = stopped + 1;
    }
    return i;
  }

  /** Right after a head completed: its body's length, 0 if it has none, -1 if chunked. */
  long declaredBodyLength() {
    return switch (state) {
      case START -> 0;
      case FIXED_BODY -> remaining;
      default -> -1;
    };
  }

  Phase phase() {
    return switch (state) {
      case START -> Phase.BETWEEN;
      case REQUEST_LINE, LINE_START, NAME, VALUE, HEAD_END -> Phase.HEAD;
      default -> Phase.BODY;
    };
  }

  /** Heads that passed the checks and were let through. */
  long headsCompleted() {
    return headsCompleted;
  }

  /** Why the request was refused, or null. */
  HttpError refusal() {
    return refusal;
  }

  /** Whether the refusal is about the body of the last completed head (else about a new head). */
  boolean refusedInBody() {
    return refusedInBody;
  }

  /** Handles one byte outside the bulk body states. */
  private void step(byte b) {
    switch (state) {
      case START -> {
        // Like the decoder, blank lines and stray control characters before a request are skipped.
        if (b > ' ' && b != 0x7f) {
          state = State.REQUEST_LINE;
          token.setLength(0);
          token.append((char) b);
        }
      }
      case REQUEST_LINE -> requestLine(b);
      case LINE_START -> lineStart(b);
      case NAME -> {
        if (b == ':') {
          // Compared in place: every header of every request passes here.
          contentLengthHeader = CONTENT_LENGTH.contentEquals(name);
          framingHeader = contentLengthHeader || TRANSFER_ENCODING.contentEquals(name);
          value.setLength(0);
          state = State.VALUE;
        } else if (b == '\n') {
          state = State.LINE_START;
        } else if (name.length() < NAME_CAP) {
          name.append(Character.toLowerCase((char) (b & 0xff)));
        }
      }
      case VALUE -> {
        if (b == '\n') {
          header();
          state = State.LINE_START;
        } else if (framingHeader && b != '\r' && value.length() <= VALUE_CAP) {
          value.append((char) (b & 0xff));
        }
      }
      case HEAD_END -> {
        if (b == '\n') {
          headComplete();
        } else {
          refuse(400, "malformed request head", false);
        }
      }
      case CHUNK_SIZE -> chunkSize(b);
      case CHUNK_EXT -> {
        if (b == '\r') {
          state = State.CHUNK_SIZE_END;
        } else if (b == '\n' || ++chunkExtensionLength > CHUNK_EXTENSION_CAP) {
          refuse(400, "malformed chunked body: invalid chunk extension", true);
        }
      }
      case CHUNK_SIZE_END -> {
        if (b != '\n') {
          refuse(400, "malformed chunked body: invalid chunk size", true);
        } else if (chunkSize == 0) {
          state = State.TRAILER_START;
        } else {
          remaining = chunkSize;
          state = State.CHUNK_DATA;
        }
      }
      case CHUNK_DATA_CR -> {
        if (b == '\r') {
          state = State.CHUNK_DATA_LF;
        } else {
          refuse(400, "malformed chunked body: chunk data not followed by CRLF", true);
        }
      }
      case CHUNK_DATA_LF -> {
        if (b == '\n') {
          startChunk();
        } else {
          refuse(400, "malformed chunked body: chunk data not followed by CRLF", true);
        }
      }
      case TRAILER_START -> {
        if (b == '\r') {
          state = State.TRAILER_END;
        } else if (b == '\n') {
          refuse(400, "malformed chunked body: invalid trailer section", true);
        } else {
          state = State.TRAILER_LINE;
        }
      }
      case TRAILER_LINE -> {
        if (b == '\n') {
          state = State.TRAILER_START;
        }
      }
      case TRAILER_END -> {
        if (b == '\n') {
          state = State.START;
        } else {
          refuse(400, "malformed chunked body: invalid trailer section", true);
        }
      }
      default -> throw new IllegalStateException("bulk state " + state);
    }
  }

  /** Keeps the last space-separated token of the request line: its HTTP version. */
  private void requestLine(byte b) {
    if (b == '\n') {
      version = HTTP_1_1.contentEquals(token) ? HTTP_1_1 : token.toString();
      name.setLength(0);
      contentLength = null;
      transferEncoding = null;
      state = State.LINE_START;
    } else if (b == ' ') {
      token.setLength(0);
    } else if (b != '\r' && token.length() <= VERSION_CAP) {
      token.append((char) (b & 0xff));
    }
  }

  private void lineStart(byte b) {
    if (b == '\r') {
      state = State.HEAD_END;
    } else if (b == '\n') {
      headComplete();
    } else if (b == ' ' || b == '\t') {
      refuse(400, "obsolete line folding in header fields is not allowed", false);
    } else {
      name.setLength(0);
      name.append(Character.toLowerCase((char) (b & 0xff)));
      state = State.NAME;
    }
  }

  /** Several framing header lines are read as one comma-separated list (RFC 9110 §5.3). */
  private void header() {
    if (!framingHeader) {
      return;
    }
    String text = (value.length() > VALUE_CAP ? value.substring(0, VALUE_CAP) + "…" : value)
        .toString().trim();
    if (contentLengthHeader) {
      contentLength = contentLength == null ? text : contentLength + "," + text;
    } else {
      transferEncoding = transferEncoding == null ? text : transferEncoding + "," + text;
    }
  }

  private void headComplete() {
    if (!version.equals(HTTP_1_1) && !version.equals("HTTP/1.0")) {
      if (HTTP_VERSION.matcher(version).matches()) {
        refuse(505, "HTTP version not supported: " + version, false);
      } else {
        refuse(400, "malformed request line", false);
      }
    } else if (transferEncoding != null) {
      if (contentLength != null) {
        refuse(400, "Content-Length and Transfer-Encoding must not both be present", false);
      } else if (!transferEncoding.trim().toLowerCase(Locale.ROOT).equals("chunked")) {
        refuse(501, "unsupported transfer coding: " + transferEncoding.trim(), false);
      } else {
        headsCompleted++;
        chunkedBodyBytes = 0;
        startChunk();
      }
    } else if (contentLength != null) {
      long length = contentLength(contentLength);
      if (length < 0) {
        refuse(400, "invalid Content-Length: " + contentLength.trim(), false);
      } else if (length > maxBodyBytes) {
        refuse(HttpError.bodyTooLarge(maxBodyBytes), false);
      } else {
        headsCompleted++;
        remaining = length;
        state = length == 0 ? State.START : State.FIXED_BODY;
      }
    } else {
      headsCompleted++;
      state = State.START;
    }
  }

  /** The declared length (every listed value equal), Long.MAX_VALUE if huge, -1 if invalid. */
  private static long contentLength(String list) {
    long length = -1;
    int from = 0;
    while (from <= list.length()) {
      int comma = list.indexOf(',', from);
      int to = comma < 0 ? list.length() : comma;
      long parsed = digits(list, from, to);
      if (parsed < 0 || (length >= 0 && parsed != length)) {
        return -1;
      }
      length = parsed;
      from = to + 1;
    }
    return length;
  }

  /**
   * The decimal number between optional spaces and tabs in {@code text[from, to)}, saturated at
   * Long.MAX_VALUE; -1 if there is none or anything else is there. Per request, so no regex.
   */
  private static long digits(String text, int from, int to) {
    while (from < to && (text.charAt(from) == ' ' || text.charAt(from) == '\t')) {
      from++;
    }
    while (to > from && (text.charAt(to - 1) == ' ' || text.charAt(to - 1) == '\t')) {
      to--;
    }
    if (from == to) {
      return -1;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : value * 10 + (c - '0');
    }
    return value;
  }

  private void startChunk() {
    chunkSize = 0;
    chunkSizeHasDigits = false;
    chunkExtensionLength = 0;
    state = State.CHUNK_SIZE;
  }

  private void chunkSize(byte b) {
    int digit = Character.digit(b, 16);
    if (digit >= 0) {
      chunkSize = chunkSize * 16 + digit;
      chunkSizeHasDigits = true;
      if (chunkSize > maxBodyBytes - chunkedBodyBytes) {
        refuse(HttpError.bodyTooLarge(maxBodyBytes), true);
      }
    } else if (!chunkSizeHasDigits) {
      refuse(400, "malformed chunked body: invalid chunk size", true);
    } else if (b == '\r') {
      chunkedBodyBytes += chunkSize;
      state = State.CHUNK_SIZE_END;
    } else if (b == ';' || b == ' ' || b == '\t') {
      chunkedBodyBytes += chunkSize;
      state = State.CHUNK_EXT;
    } else {
      refuse(400, "malformed chunked body: invalid chunk size", true);
    }
  }

  private void refuse(int status, String message, boolean inBody) {
    refuse(new HttpError(status, message, null), inBody);
  }

  private void refuse(HttpError error, boolean inBody) {
    refusal = error;
    refusedInBody = inBody;
    state = State.REFUSED;
  }
}
