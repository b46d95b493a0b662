package io.sluice.api.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.util.Arrays;

/**
 * Collects a request body into one array of its exact size. A body that declares its length
 * (every HTTP/1.1 client sending a bulk enqueue does) is copied once, straight from the network
 * buffers; Vert.x's own {@code body()} grows a buffer by doubling and then copies it out again,
 * which showed up as a tenth of the server's time under bulk enqueue.
 */
final class BodyReader {
  /** Larger declared lengths are not trusted for an up-front allocation. */
  private static final int MAX_PRESIZE = 64 << 20;
  private static final int DEFAULT_CAPACITY = 1024;

  private byte[] bytes;
  private int length;

  private BodyReader(int capacity) {
    this.bytes = new byte[capacity];
  }

  /** Must be called before the request handler returns, like {@code request.body()}. */
  static Future<byte[]> read(HttpServerRequest request) {
    BodyReader reader = new BodyReader(initialCapacity(request.getHeader("Content-Length")));
    Promise<byte[]> done = Promise.promise();
    request.handler(reader::append);
    request.exceptionHandler(done::tryFail);
    request.endHandler(v -> done.tryComplete(reader.result()));
    return done.future();
  }

  static int initialCapacity(String contentLength) {
    if (contentLength == null) {
      return DEFAULT_CAPACITY;
    }
    try {
      long declared = Long.parseLong(contentLength.trim());
      return declared >= 0 && declared <= MAX_PRESIZE ? (int) declared : DEFAULT_CAPACITY;
    } catch (NumberFormatException e) {
      return DEFAULT_CAPACITY;
    }
  }

  private void append(Buffer chunk) {
    int n = chunk.length();
    if (length + n > bytes.length) {
      long grown = Math.max((long) bytes.length * 2, (long) length + n);
      if (grown > Integer.MAX_VALUE - 8) {
        throw new IllegalStateException("request body above 2 GiB");
      }
      bytes = Arrays.copyOf(bytes, (int) grown);
    }
    chunk.getBytes(0, n, bytes, length);
    length += n;
  }

  private byte[] result() {
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }
}
