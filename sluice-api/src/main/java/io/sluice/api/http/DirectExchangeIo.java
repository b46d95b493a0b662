package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
  private final DirectHead head;
  private final byte[] body;
  private final BooleanSupplier connectionClosed;
  private final Consumer<ByteBuf> writer;
  private IntConsumer statusSink;
  private boolean answered;

  /** {@code writer} takes the response's bytes, once. */
  DirectExchangeIo(DirectHead head, byte[] body, BooleanSupplier connectionClosed,
      Consumer<ByteBuf> writer) {
    this.head = head;
    this.body = body;
    this.connectionClosed = connectionClosed;
    this.writer = writer;
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
    String head = HttpError.statusLine(status) + "Content-Type: " + contentType + "\r\ncontent-length: "
        + content.length() + "\r\n\r\n";
    write(status, Unpooled.wrappedBuffer(
        Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII)),
        ((BufferInternal) content).getByteBuf()));
  }

  @Override
  public void answerNoContent() {
    write(204, Unpooled.wrappedBuffer(
        (HttpError.statusLine(204) + "\r\n").getBytes(StandardCharsets.US_ASCII)));
  }

  private void write(int status, ByteBuf response) {
    if (answered) {
      response.release();
      throw new IllegalStateException("already answered");
    }
    answered = true;
    if (statusSink != null) {
      statusSink.accept(status);
    }
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
