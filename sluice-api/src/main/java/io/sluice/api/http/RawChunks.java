package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.net.impl.ConnectionBase;
import java.nio.charset.StandardCharsets;

/**
 * Writes the chunks of a chunked HTTP/1.1 response straight to its connection, from the
 * connection's guard, below Vert.x's response, write queue and encoder. For a take stream, whose
 * head Vert.x has written and whose end Vert.x writes: every chunk is whole, so one written here
 * and one Vert.x still holds in its queue (a heartbeat) may pass each other without harm, but
 * nothing may be written here before the head is out (docs/decisions.md, "Take stream chunks
 * below Vert.x").
 */
public final class RawChunks {
  private static final byte[] CRLF = {'\r', '\n'};
  /** Room for a chunk's size line: up to 8 hexadecimal digits (an int's), then CRLF. */
  private static final int SIZE_LINE_ROOM = 8 + 2;
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final ChannelHandlerContext guard;

  private RawChunks(ChannelHandlerContext guard) {
    this.guard = guard;
  }

  /**
   * The chunks of {@code request}'s response, or null when it is not on a guarded HTTP/1.1
   * connection.
   */
  public static RawChunks below(HttpServerRequest request) {
    if (request.version() == HttpVersion.HTTP_2) {
      return null;
    }
    HttpConnection connection = request.connection();
    if (!(connection instanceof ConnectionBase base)) {
      return null;
    }
    ChannelHandlerContext guard = base.channel().pipeline().context(ConnectionGuard.NAME);
    return guard == null ? null : on(guard);
  }

  /** Chunks written from the context of a connection's guard. */
  public static RawChunks on(ChannelHandlerContext guard) {
    return new RawChunks(guard);
  }

  /**
   * An empty chunk to frame a delivery into, in a direct buffer that the native transport writes
   * as it is: frames go from its writer index on, after {@link #SIZE_LINE_ROOM} bytes kept for the
   * size line. Hand it to {@link #write(ByteBuf)}, or release it. Call on the loop.
   */
  public ByteBuf newChunk(int expectedFrameBytes) {
    ByteBuf chunk = guard.alloc().directBuffer(SIZE_LINE_ROOM + expectedFrameBytes + CRLF.length);
    chunk.writerIndex(SIZE_LINE_ROOM);
    return chunk;
  }

  /** Writes {@code data} as one chunk; completes once it is in the socket. Call on the loop. */
  public Future<Void> write(Buffer data) {
    ByteBuf bytes = ((BufferInternal) data).getByteBuf();
    if (!bytes.isReadable()) {
      // An empty chunk would end the body.
      return Future.succeededFuture();
    }
    ByteBuf chunk = newChunk(bytes.readableBytes());
    chunk.writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
    return write(chunk);
  }

  /**
   * Writes a chunk from {@link #newChunk}, whose frames end at its writer index, and releases it;
   * completes once it is in the socket. Call on the loop.
   */
  public Future<Void> write(ByteBuf chunk) {
    int length = chunk.writerIndex() - SIZE_LINE_ROOM;
    if (length <= 0) {
      chunk.release();
      if (length < 0) {
        throw new IllegalArgumentException("not a chunk from newChunk: nothing kept for its size");
      }
      // An empty chunk would end the body.
      return Future.succeededFuture();
    }
    int sizeDigits = hexDigits(length);
    int sizeLineAt = SIZE_LINE_ROOM - CRLF.length - sizeDigits;
    for (int i = 0; i < sizeDigits; i++) {
      chunk.setByte(sizeLineAt + i, HEX[(length >>> (4 * (sizeDigits - 1 - i))) & 0xf]);
    }
    chunk.setBytes(SIZE_LINE_ROOM - CRLF.length, CRLF);
    chunk.readerIndex(sizeLineAt).writeBytes(CRLF);
    Written written = new Written();
    guard.writeAndFlush(chunk).addListener(written);
    return written.promise.future();
  }

  private static int hexDigits(int length) {
    return Math.max(1, (Integer.SIZE - Integer.numberOfLeadingZeros(length) + 3) / 4);
  }

  /**
   * Completes a chunk's promise once its write is done. A class rather than a lambda, as it is made
   * for every chunk: on C1 a capturing lambda is made through method handles it does not inline.
   */
  private static final class Written implements ChannelFutureListener {
    private final Promise<Void> promise = Promise.promise();

    @Override
    public void operationComplete(ChannelFuture done) {
      if (done.isSuccess()) {
        promise.complete();
      } else {
        promise.fail(done.cause());
      }
    }
  }
}
