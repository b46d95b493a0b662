package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.api.HttpLimits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A request that a connection's guard read whole, head and body, and whose answer it writes
 * itself. The response has the bytes Vert.x writes for it: the status line, then
 * {@code Content-Type} and {@code content-length}, or no header at all for a 204.
 */
final class DirectExchangeIo implements ExchangeIo {
  private static final byte[] CONTENT_TYPE = ascii("Content-Type: ");
  private static final byte[] CONTENT_LENGTH = ascii("\r\ncontent-length: ");
  private static final byte[] END_OF_HEAD = ascii("\r\n\r\n");
  private static final byte[] NO_CONTENT = ascii(HttpError.statusLine(204) + "\r\n");
  private static final int MAX_INT_DIGITS = 10;

  private final DirectHead head;
  private final byte[] body;
  private final BooleanSupplier connectionClosed;
  private final Consumer<ByteBuf> writer;
  private final ByteBufAllocator allocator;
  private IntConsumer statusSink;
  private boolean answered;

  /** {@code writer} takes the response's bytes, once, in a buffer from {@code allocator}. */
  DirectExchangeIo(DirectHead head, byte[] body, BooleanSupplier connectionClosed,
      Consumer<ByteBuf> writer, ByteBufAllocator allocator) {
    this.head = head;
    this.body = body;
    this.connectionClosed = connectionClosed;
    this.writer = writer;
    this.allocator = allocator;
  }

  @Override
  public HttpMethod method() {
    return head.method();
  }

  @Override
  public String path() {
    return head.path();
  }

  @Override
  public String query() {
    return head.query();
  }

  @Override
  public String header(String name) {
    if (name.equalsIgnoreCase("Content-Type")) {
      return head.contentType();
    }
    if (name.equalsIgnoreCase("Accept")) {
      return head.accept();
    }
    throw new IllegalArgumentException("a direct exchange keeps no " + name + " header");
  }

  @Override
  public Future<byte[]> body(HttpLimits limits) {
    // The guard's framing refused a body above the limit before it was read.
    return Future.succeededFuture(body);
  }

  @Override
  public boolean answered() {
    return answered || connectionClosed.getAsBoolean();
  }

  @Override
  public void answer(int status, String contentType, Buffer content) {
    refuseSecondAnswer();
    ByteBuf bytes = ((BufferInternal) content).getByteBuf();
    int length = bytes.readableBytes();
    byte[] statusLine = StatusLines.of(status);
    // The whole answer in one direct buffer: the native transport writes it as it is, where a
    // heap or composite buffer is first copied into a direct one of its own.
    ByteBuf response = allocator.directBuffer(statusLine.length + CONTENT_TYPE.length
        + contentType.length() + CONTENT_LENGTH.length + MAX_INT_DIGITS + END_OF_HEAD.length
        + length);
    response.writeBytes(statusLine).writeBytes(CONTENT_TYPE);
    response.writeCharSequence(contentType, StandardCharsets.US_ASCII);
    response.writeBytes(CONTENT_LENGTH);
    writeDecimal(response, length);
    response.writeBytes(END_OF_HEAD).writeBytes(bytes, bytes.readerIndex(), length);
    write(status, response);
  }

  @Override
  public void answerNoContent() {
    refuseSecondAnswer();
    ByteBuf response = allocator.directBuffer(NO_CONTENT.length);
    write(204, response.writeBytes(NO_CONTENT));
  }

  private static void writeDecimal(ByteBuf out, int value) {
    int divisor = 1;
    while (value / divisor >= 10) {
      divisor *= 10;
    }
    for (; divisor > 0; divisor /= 10) {
      out.writeByte('0' + value / divisor % 10);
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private void refuseSecondAnswer() {
    if (answered) {
      throw new IllegalStateException("already answered");
    }
  }

  private void write(int status, ByteBuf response) {
    answered = true;
    try {
      if (statusSink != null) {
        statusSink.accept(status);
      }
    } catch (Throwable e) {
      response.release();
      throw e;
    }
    // The writer owns the buffer from here, released once written or when it cannot be.
    writer.accept(response);
  }

  @Override
  public void whenHeadSent(IntConsumer statusSink) {
    this.statusSink = statusSink;
  }

  @Override
  public HttpServerRequest vertxRequest() {
    throw new IllegalStateException(
        "a request answered below Vert.x has no Vert.x request: route it with Router.add");
  }
}
