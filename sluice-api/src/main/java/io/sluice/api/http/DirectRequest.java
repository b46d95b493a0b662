package io.sluice.api.http;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * A request the connection's guard reads whole in order to answer it itself: its head, the route
 * it goes to, and its body as far as it has arrived.
 */
final class DirectRequest {
  private final DirectHead head;
  private final Router.Routed route;
  private final long bodyLength;
  private byte[] body;
  private int filled;

  /** {@code bodyLength} is the declared one, at most {@link Integer#MAX_VALUE} - 8. */
  DirectRequest(DirectHead head, Router.Routed route, long bodyLength) {
    this.head = head;
    this.route = route;
    this.bodyLength = bodyLength;
    this.body = new byte[(int) Math.min(bodyLength, BodyReader.MAX_PRESIZE)];
  }

  /** How many of {@code available} received bytes belong to the body. */
  int bodyBytesIn(int available) {
    return (int) Math.min(bodyLength - filled, available);
  }

  /** Reads the next {@code n} bytes of the body from {@code from}. */
  void fill(ByteBuf from, int n) {
    if (filled + n > body.length) {
      // The declared length is trusted once the body has arrived past the first allocation.
      body = Arrays.copyOf(body, (int) bodyLength);
    }
    from.readBytes(body, filled, n);
    filled += n;
  }

  boolean complete() {
    return filled == bodyLength;
  }

  DirectHead head() {
    return head;
  }

  Router.Routed route() {
    return route;
  }

  byte[] body() {
    return body;
  }
}
