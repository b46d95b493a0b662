package io.sluice.cli.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A minimal HTTP/2 cleartext client with prior knowledge, speaking frames directly over a socket
 * so tests can see exactly which frames the server sends (e.g. that a 204 carries no DATA frame).
 * HPACK is Netty's. Single-threaded; every read is bounded by the socket timeout.
 */
final class RawH2Connection implements AutoCloseable {
  static final int DATA = 0x0;
  static final int HEADERS = 0x1;
  static final int RST_STREAM = 0x3;
  static final int SETTINGS = 0x4;
  static final int PING = 0x6;
  static final int GOAWAY = 0x7;
  static final int CONTINUATION = 0x9;
  static final int FLAG_END_STREAM = 0x1;
  static final int FLAG_ACK = 0x1;
  static final int FLAG_END_HEADERS = 0x4;
  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** One received frame. */
  record Frame(int type, int flags, int streamId, byte[] payload) {
    boolean endStream() {
      return (type == DATA || type == HEADERS) && (flags & FLAG_END_STREAM) != 0;
    }
  }

  /** Everything the server sent on one stream, in order. */
  record Exchange(Http2Headers headers, List<Frame> frames, byte[] body) {
    String status() {
      return headers.status().toString();
    }
  }

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private final int port;
  private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true);
  private int nextStreamId = 1;

  RawH2Connection(int port) throws IOException {
    this.port = port;
    this.socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port),
        (int) ServerFixture.TIMEOUT.toMillis());
    socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
    out.write(PREFACE);
    writeFrame(SETTINGS, 0, 0, new byte[0]);
    out.flush();
  }

  /** Sends a request without a body and collects the response stream until it ends. */
  Exchange request(String method, String path) throws IOException {
    return collect(sendHeaders(method, path, new DefaultHttp2Headers(), true));
  }

  /**
   * Sends the headers of a request declaring a body of {@code contentLength} bytes, sends none of
   * it, and collects the response stream until it ends.
   */
  Exchange requestDeclaring(String method, String path, long contentLength) throws IOException {
    Http2Headers headers = new DefaultHttp2Headers()
        .set("content-type", "application/json")
        .set("content-length", Long.toString(contentLength));
    return collect(sendHeaders(method, path, headers, false));
  }

  private int sendHeaders(String method, String path, Http2Headers extra, boolean endStream)
      throws IOException {
    int streamId = nextStreamId;
    nextStreamId += 2;
    Http2Headers headers = new DefaultHttp2Headers()
        .method(method)
        .scheme("http")
        .path(path)
        .authority("127.0.0.1:" + port);
    headers.add(extra);
    ByteBuf block = Unpooled.buffer();
    try {
      encoder.encodeHeaders(streamId, headers, block);
      byte[] bytes = new byte[block.readableBytes()];
      block.readBytes(bytes);
      writeFrame(HEADERS, (endStream ? FLAG_END_STREAM : 0) | FLAG_END_HEADERS, streamId, bytes);
      out.flush();
    } catch (Http2Exception e) {
      throw new IOException(e);
    } finally {
      block.release();
    }
    return streamId;
  }

  /**
   * Whether the server ends the connection (GOAWAY or end of stream) within {@code timeout},
   * answering its SETTINGS and PINGs meanwhile; false if it stays open that long.
   */
  boolean closedWithin(Duration timeout) throws IOException {
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      while (true) {
        Frame frame = readFrame();
        if (frame.type() == GOAWAY) {
          return true;
        }
        if (frame.type() == SETTINGS && (frame.flags() & FLAG_ACK) == 0) {
          writeFrame(SETTINGS, FLAG_ACK, 0, new byte[0]);
          out.flush();
        } else if (frame.type() == PING && (frame.flags() & FLAG_ACK) == 0) {
          writeFrame(PING, FLAG_ACK, 0, frame.payload());
          out.flush();
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (EOFException e) {
      return true;
    } finally {
      socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
    }
  }

  private Exchange collect(int streamId) throws IOException {
    List<Frame> frames = new ArrayList<>();
    ByteArrayOutputStream headerBlock = new ByteArrayOutputStream();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    Http2Headers headers = null;
    while (true) {
      Frame frame = readFrame();
      if (frame.type() == SETTINGS && (frame.flags() & FLAG_ACK) == 0) {
        writeFrame(SETTINGS, FLAG_ACK, 0, new byte[0]);
        out.flush();
        continue;
      }
      if (frame.type() == PING && (frame.flags() & FLAG_ACK) == 0) {
        writeFrame(PING, FLAG_ACK, 0, frame.payload());
        out.flush();
        continue;
      }
      if (frame.type() == GOAWAY) {
        throw new IOException("server sent GOAWAY");
      }
      if (frame.streamId() != streamId) {
        continue;
      }
      frames.add(frame);
      switch (frame.type()) {
        case HEADERS, CONTINUATION -> {
          headerBlock.write(frame.payload());
          if ((frame.flags() & FLAG_END_HEADERS) != 0) {
            headers = decode(streamId, headerBlock.toByteArray());
            headerBlock.reset();
          }
        }
        case DATA -> body.write(frame.payload());
        case RST_STREAM -> throw new IOException("server reset stream " + streamId);
        default -> {
          // WINDOW_UPDATE, PRIORITY: not relevant here.
        }
      }
      if (frame.endStream()) {
        return new Exchange(headers, frames, body.toByteArray());
      }
    }
  }

  private Http2Headers decode(int streamId, byte[] block) throws IOException {
    ByteBuf buffer = Unpooled.wrappedBuffer(block);
    try {
      return decoder.decodeHeaders(streamId, buffer);
    } catch (Http2Exception e) {
      throw new IOException(e);
    } finally {
      buffer.release();
    }
  }

  private Frame readFrame() throws IOException {
    int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8)
        | in.readUnsignedByte();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int streamId = in.readInt() & 0x7FFFFFFF;
    byte[] payload = new byte[length];
    in.readFully(payload);
    if ((type == HEADERS || type == DATA) && (flags & 0x8) != 0) {
      // PADDED: strip the pad length byte and the padding.
      int pad = payload[0] & 0xFF;
      payload = Arrays.copyOfRange(payload, 1, payload.length - pad);
    }
    if (type == HEADERS && (flags & 0x20) != 0) {
      // PRIORITY: skip the 5-byte priority block.
      payload = Arrays.copyOfRange(payload, 5, payload.length);
    }
    return new Frame(type, flags, streamId, payload);
  }

  private void writeFrame(int type, int flags, int streamId, byte[] payload) throws IOException {
    int length = payload.length;
    out.write(new byte[] {
      (byte) (length >>> 16), (byte) (length >>> 8), (byte) length,
      (byte) type, (byte) flags,
      (byte) (streamId >>> 24), (byte) (streamId >>> 16), (byte) (streamId >>> 8), (byte) streamId
    });
    out.write(payload);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
