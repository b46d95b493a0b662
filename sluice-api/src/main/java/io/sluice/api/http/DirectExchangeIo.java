package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.api.HttpLimits;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A request that a connection's guard read whole, head and body, and whose answer it writes
 * itself. The response has the bytes Vert.x would write for it: the status line, then
 * {@code Content-Type} and {@code content-length} when there is a body, and no header at all for
 * a 204.
 */
final class DirectExchangeIo implements ExchangeIo {
  private final DirectHead head;
  private final byte[] body;
  private final Consumer<ByteBuf> writer;
  private IntConsumer statusSink;
  private boolean answered;

  /** {@code writer} takes the response's bytes, once, on the connection's event loop. */
  DirectExchangeIo(DirectHead head, byte[] body, Consumer<ByteBuf> writer) {
    this.head = head;
    this.body = body;
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
    return answered;
  }

  @Override
  public void answer(int status, String contentType, Buffer content) {
    if (answered) {
      throw new IllegalStateException("already answered");
    }
    answered = true;
    StringBuilder text = new StringBuilder(96).append("HTTP/1.1 ").append(status).append(' ')
        .append(HttpResponseStatus.valueOf(status).reasonPhrase()).append("\r\n");
    if (content != null) {
      text.append("Content-Type: ").append(contentType).append("\r\ncontent-length: ")
          .append(content.length()).append("\r\n");
    } else if (status != 204) {
      text.append("content-length: 0\r\n");
    }
    byte[] headBytes = text.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    if (statusSink != null) {
      statusSink.accept(status);
    }
    writer.accept(content == null ? Unpooled.wrappedBuffer(headBytes)
        : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(headBytes),
            ((BufferInternal) content).getByteBuf()));
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
