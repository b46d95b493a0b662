package io.sluice.bench;

import io.vertx.core.buffer.Buffer;

/**
 * Cuts a chunked byte stream into lines without allocating per line.
 *
 * <p>Chunk boundaries from the network fall anywhere, so a partial line is kept in a reusable
 * array until its newline arrives. Handlers get a view into that array that is only valid for the
 * duration of the call, which is what keeps the drain client cheap at tens of thousands of lines
 * per second.
 */
final class NdjsonSplitter {

  /** Receives one line (without its line terminator); the bytes are reused after it returns. */
  interface LineHandler {
    void onLine(byte[] buf, int start, int end);
  }

  /** A server that never sends a newline must not make the client grow without bound. */
  private static final int MAX_BUFFERED = 16 * 1024 * 1024;

  private byte[] buf = new byte[32 * 1024];
  private int len;

  void feed(Buffer chunk, LineHandler handler) {
    int n = chunk.length();
    ensureCapacity(len + n);
    chunk.getBytes(0, n, buf, len);
    feedAppended(n, handler);
  }

  /** Same as {@link #feed(Buffer, LineHandler)} for callers (and tests) holding plain bytes. */
  void feed(byte[] bytes, int off, int n, LineHandler handler) {
    ensureCapacity(len + n);
    System.arraycopy(bytes, off, buf, len, n);
    feedAppended(n, handler);
  }

  /** Bytes of an unfinished line still waiting for its newline. */
  int pendingBytes() {
    return len;
  }

  private void feedAppended(int n, LineHandler handler) {
    // Only the new bytes can contain a newline we have not seen yet.
    int scanFrom = len;
    len += n;
    int lineStart = 0;
    byte[] b = buf;
    for (int i = scanFrom; i < len; i++) {
      if (b[i] == '\n') {
        int end = (i > lineStart && b[i - 1] == '\r') ? i - 1 : i;
        handler.onLine(b, lineStart, end);
        lineStart = i + 1;
      }
    }
    if (lineStart > 0) {
      System.arraycopy(b, lineStart, b, 0, len - lineStart);
      len -= lineStart;
    }
  }

  private void ensureCapacity(int needed) {
    if (needed > MAX_BUFFERED) {
      throw new BenchFailure("take stream sent more than " + MAX_BUFFERED + " bytes without a newline");
    }
    if (needed > buf.length) {
      byte[] bigger = new byte[Math.min(MAX_BUFFERED, Math.max(needed, buf.length * 2))];
      System.arraycopy(buf, 0, bigger, 0, len);
      buf = bigger;
    }
  }
}
