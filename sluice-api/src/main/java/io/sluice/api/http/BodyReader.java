package io.sluice.api.http;

import io.sluice.api.HttpLimits;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * Collects a request body into one array of its exact size. A body that declares its length
 * (every HTTP/1.1 client sending a bulk enqueue does) is copied once, straight from the network
 * buffers; Vert.x's own {@code body()} grows a buffer by doubling and then copies it out again,
 * which showed up as a tenth of the server's time under bulk enqueue.
 *
 * <p>A body above {@link HttpLimits#maxBodyBytes()} fails with a 413, from its declared length
 * before any of it is read, or as soon as the bytes received cross the limit, after which nothing
 * more is kept. Over HTTP/1.1 the connection's {@link ConnectionGuard} refuses such bodies, and
 * times out stalled ones, before they get here; over HTTP/2 a body that receives nothing for the
 * body read timeout fails here with a 408.
 */
final class BodyReader {
  /**
   * The most allocated for a declared length before any of the body has arrived: a client that
   * declares 64 MiB and then trickles must not hold 64 MiB of heap per connection. A larger body
   * grows to its declared length once this much has actually arrived.
   */
  static final int MAX_PRESIZE = 1 << 20;
  private static final int DEFAULT_CAPACITY = 1024;

  private final long maxBytes;
  /** The declared Content-Length, or -1. */
  private final long declared;
  private final Promise<byte[]> done = Promise.promise();
  /** Null once the body has been refused. */
  private byte[] bytes;
  private int length;
  private long lastChunkNanos = System.nanoTime();

  private BodyReader(long declared, long maxBytes) {
    this.bytes = new byte[declared < 0 ? DEFAULT_CAPACITY : (int) Math.min(declared, MAX_PRESIZE)];
    this.declared = declared;
    this.maxBytes = maxBytes;
  }

  /** Must be called before the request handler returns, like {@code request.body()}. */
  static Future<byte[]> read(HttpServerRequest request, HttpLimits limits) {
    long declared = declaredLength(request.getHeader("Content-Length"));
    if (declared > limits.maxBodyBytes()) {
      request.handler(chunk -> { });
      return Future.failedFuture(new HttpError.Rejection(
          HttpError.bodyTooLarge(limits.maxBodyBytes())));
    }
    BodyReader reader = new BodyReader(declared, limits.maxBodyBytes());
    request.handler(reader::append);
    request.exceptionHandler(reader.done::tryFail);
    request.endHandler(v -> {
      if (reader.bytes != null) {
        reader.done.tryComplete(reader.result());
      }
    });
    if (request.version() == HttpVersion.HTTP_2) {
      long timeoutMs = limits.bodyReadTimeoutMs();
      reader.failWhenStalled(Vertx.currentContext().owner(), timeoutMs, timeoutMs);
    }
    return reader.done.future();
  }

  /** The declared Content-Length, or -1 if absent or unreadable. */
  static long declaredLength(String contentLength) {
    if (contentLength == null) {
      return -1;
    }
    try {
      return Long.parseLong(contentLength.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private void append(Buffer chunk) {
    if (bytes == null) {
      return;
    }
    int n = chunk.length();
    if (length + (long) n > maxBytes) {
      bytes = null;
      done.tryFail(new HttpError.Rejection(HttpError.bodyTooLarge(maxBytes)));
      return;
    }
    if (length + n > bytes.length) {
      // A declared length is trusted once the body has arrived past the first allocation.
      long wanted = declared >= (long) length + n ? declared : (long) bytes.length * 2;
      long grown = Math.min(Math.max(wanted, (long) length + n), maxBytes);
      bytes = Arrays.copyOf(bytes, (int) grown);
    }
    chunk.getBytes(0, n, bytes, length);
    length += n;
    lastChunkNanos = System.nanoTime();
  }

  /** Checks for a stall about once per timeout, not on every chunk. */
  private void failWhenStalled(Vertx vertx, long timeoutMs, long delayMs) {
    vertx.setTimer(delayMs, id -> {
      if (done.future().isComplete()) {
        return;
      }
      long quietMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastChunkNanos);
      if (quietMs >= timeoutMs) {
        bytes = null;
        done.tryFail(new HttpError.Rejection(HttpError.bodyTimedOut(timeoutMs)));
      } else {
        failWhenStalled(vertx, timeoutMs, timeoutMs - quietMs);
      }
    });
  }

  private byte[] result() {
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }
}
