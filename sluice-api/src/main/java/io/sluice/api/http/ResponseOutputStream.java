package io.sluice.api.http;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The body of a chunked HTTP response as an {@link OutputStream}, for a blocking thread that
 * writes a long body (never an event loop: writes wait). Bytes go out in chunks of
 * {@value #CHUNK_BYTES}; a chunk is handed to the response's event loop only once the response's
 * write queue has room, so a slow client holds the writer back instead of filling memory.
 *
 * <p>{@link #close} ends the response; {@link #abort} resets it instead, so that the client sees
 * a truncated body as an error. Once the client has gone, every write fails at once.
 */
public final class ResponseOutputStream extends OutputStream {
  private static final int CHUNK_BYTES = 64 * 1024;

  private final Context context;
  private final HttpServerResponse response;
  private final long stallTimeoutMs;
  /** One permit while the response can take another chunk; released on the event loop. */
  private final Semaphore room = new Semaphore(1);
  /** Set on the event loop when the connection closes or fails. */
  private volatile boolean gone;
  private final byte[] chunk = new byte[CHUNK_BYTES];
  private int filled;
  private long written;
  private boolean ended;

  /**
   * Call on the response's event loop, with its headers set. A writer that gets no room for
   * {@code stallTimeoutMs} (a client that stopped reading) aborts the response.
   */
  public ResponseOutputStream(Context context, HttpServerResponse response, long stallTimeoutMs) {
    this.context = context;
    this.response = response;
    this.stallTimeoutMs = stallTimeoutMs;
    response.setChunked(true);
    response.closeHandler(v -> leave());
    response.exceptionHandler(e -> leave());
    gone = response.closed();
  }

  private void leave() {
    gone = true;
    room.release(); // wakes a writer waiting for room
  }

  @Override
  public void write(int b) throws IOException {
    if (filled == CHUNK_BYTES) {
      send();
    }
    chunk[filled++] = (byte) b;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) throws IOException {
    while (length > 0) {
      if (filled == CHUNK_BYTES) {
        send();
      }
      int n = Math.min(length, CHUNK_BYTES - filled);
      System.arraycopy(bytes, offset, chunk, filled, n);
      filled += n;
      offset += n;
      length -= n;
    }
  }

  /** Bytes handed to the response so far. */
  public long written() {
    return written;
  }

  private void send() throws IOException {
    awaitRoom();
    Buffer buffer = Buffer.buffer(filled).appendBytes(chunk, 0, filled);
    written += filled;
    filled = 0;
    context.runOnContext(v -> {
      if (gone) {
        return;
      }
      response.write(buffer);
      if (response.writeQueueFull()) {
        response.drainHandler(d -> room.release());
      } else {
        room.release();
      }
    });
  }

  private void awaitRoom() throws IOException {
    if (gone) {
      throw new IOException("the client went away");
    }
    try {
      if (!room.tryAcquire(stallTimeoutMs, TimeUnit.MILLISECONDS)) {
        abort();
        throw new IOException("the client read nothing for " + stallTimeoutMs + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      abort();
      throw new InterruptedIOException("interrupted while waiting for the client");
    }
    if (gone) {
      throw new IOException("the client went away");
    }
  }

  /** Sends what is buffered and ends the response; the body is complete. */
  @Override
  public void close() throws IOException {
    if (ended) {
      return;
    }
    if (filled > 0) {
      send();
    }
    awaitRoom();
    ended = true;
    context.runOnContext(v -> {
      if (!gone) {
        response.end();
      }
    });
  }

  /**
   * Ends a response that cannot be completed: if nothing has been sent yet, it answers
   * {@code status} with {@code text} as plain text; otherwise it is reset, so the client sees the
   * body fail rather than end.
   */
  public void fail(int status, String text) {
    if (ended) {
      return;
    }
    ended = true;
    context.runOnContext(v -> {
      if (response.headWritten()) {
        if (!response.ended() && !response.closed()) {
          response.reset();
        }
      } else {
        response.headers().clear();
        plainText(response, status, text);
      }
    });
  }

  /** Answers {@code status} with {@code text} as plain text, unless the response is over. */
  public static void plainText(HttpServerResponse response, int status, String text) {
    if (!response.ended() && !response.closed()) {
      response.setStatusCode(status)
          .putHeader("Content-Type", "text/plain; charset=utf-8")
          .end(text);
    }
  }

  /** Resets the response unless it was ended: the client sees the body fail, not end. */
  private void abort() {
    if (ended) {
      return;
    }
    ended = true;
    context.runOnContext(v -> {
      if (!response.ended() && !response.closed()) {
        response.reset();
      }
    });
  }
}
