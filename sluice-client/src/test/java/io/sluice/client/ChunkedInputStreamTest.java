package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 5, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ChunkedInputStreamTest {

  @Test
  void joinsSeveralChunks() throws IOException {
    String wire = "5\r\nhello\r\n7\r\n, world\r\n"
        + "a\r\n0123456789\r\n"
        + "1A\r\n" + "abcdefghijklmnopqrstuvwxyz" + "\r\n"
        + "0\r\n\r\n";

    assertThat(decode(stream(wire)))
        .isEqualTo("hello, world0123456789abcdefghijklmnopqrstuvwxyz");
  }

  @Test
  void emptyBodyIsJustTheLastChunk() throws IOException {
    ChunkedInputStream chunked = new ChunkedInputStream(stream("0\r\n\r\n"));

    assertThat(chunked.read()).isEqualTo(-1);
    assertThat(chunked.read(new byte[8], 0, 8)).isEqualTo(-1);
  }

  @Test
  void ignoresChunkExtensions() throws IOException {
    String wire = "5;name=val\r\nhello\r\n"
        + "6 ; a=b;c=\"x;y\"\r\n world\r\n"
        + "0;last=yes\r\n\r\n";

    assertThat(decode(stream(wire))).isEqualTo("hello world");
  }

  @Test
  void skipsTrailersAfterTheLastChunkAndStopsAtTheirEnd() throws IOException {
    ByteArrayInputStream wire = stream("5\r\nhello\r\n0\r\n"
        + "Checksum: 1234\r\nX-Other: a, b\r\n\r\n"
        + "HTTP/1.1 200 OK\r\n");

    assertThat(decode(wire)).isEqualTo("hello");
    assertThat(rest(wire)).isEqualTo("HTTP/1.1 200 OK\r\n");
  }

  @Test
  void decodesDataThatArrivesOneByteAtATime() throws IOException {
    String wire = "5;x=y\r\nhello\r\n1\r\n \r\nC\r\nfrom a trick\r\n3\r\nle!\r\n0\r\nT: v\r\n\r\n";
    InputStream trickle = new OneByteAtATime(wire.getBytes(StandardCharsets.ISO_8859_1));

    assertThat(decode(trickle)).isEqualTo("hello from a trickle!");
  }

  @Test
  void aReadReturnsOnlyTheCurrentChunk() throws IOException {
    ChunkedInputStream chunked =
        new ChunkedInputStream(stream("5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"));
    byte[] buffer = new byte[100];

    assertThat(chunked.read(buffer, 0, buffer.length)).isEqualTo(5);
    assertThat(new String(buffer, 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
    assertThat(chunked.read(buffer, 10, 90)).isEqualTo(3);
    assertThat(new String(buffer, 10, 3, StandardCharsets.US_ASCII)).isEqualTo("abc");
    assertThat(chunked.read(buffer, 0, buffer.length)).isEqualTo(-1);
  }

  @Test
  void aChunkThatHasArrivedIsReturnedWithoutWaitingForMore() throws IOException {
    // Only the first chunk has arrived: reading more of the underlying stream would block, which
    // this stream reports as a failure instead.
    InputStream arrived = new NothingMoreYet("5\r\nhello".getBytes(StandardCharsets.US_ASCII));
    ChunkedInputStream chunked = new ChunkedInputStream(arrived);
    byte[] buffer = new byte[64];

    assertThat(chunked.read(buffer, 0, buffer.length)).isEqualTo(5);
    assertThat(new String(buffer, 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
  }

  @Test
  void leavesTheBytesAfterTheLastChunkUnread() throws IOException {
    ByteArrayInputStream wire = stream("3\r\nabc\r\n0\r\n\r\nNEXT RESPONSE");
    ChunkedInputStream chunked = new ChunkedInputStream(wire);

    assertThat(decode(chunked)).isEqualTo("abc");
    // Further reads stay at the end and take nothing more from the connection.
    assertThat(chunked.read()).isEqualTo(-1);
    assertThat(chunked.read(new byte[16], 0, 16)).isEqualTo(-1);
    assertThat(rest(wire)).isEqualTo("NEXT RESPONSE");
  }

  @Test
  void singleByteReadsReturnUnsignedValues() throws IOException {
    byte[] wire = concat("2\r\n".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xff, 0},
        "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    ChunkedInputStream chunked = new ChunkedInputStream(new ByteArrayInputStream(wire));

    assertThat(chunked.read()).isEqualTo(0xff);
    assertThat(chunked.read()).isEqualTo(0);
    assertThat(chunked.read()).isEqualTo(-1);
  }

  @Test
  void zeroLengthReadReturnsZero() throws IOException {
    ChunkedInputStream chunked = new ChunkedInputStream(stream("1\r\nx\r\n0\r\n\r\n"));

    assertThat(chunked.read(new byte[4], 0, 0)).isZero();
    assertThat(decode(chunked)).isEqualTo("x");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "5\r\nhel",                      // inside chunk data
      "5\r\nhello",                    // before the CRLF after the data
      "5\r\nhello\r",                  // inside that CRLF
      "5\r\nhello\r\n",                // before the next size line
      "5\r\nhello\r\n0",               // inside the last chunk's size line
      "5\r\nhello\r\n0\r\n",           // before the end of the (empty) trailer section
      "5\r\nhello\r\n0\r\nTrailer: x", // inside a trailer
      "",                              // before anything
  })
  void cutOffBodyIsAnEofException(String wire) {
    assertThatThrownBy(() -> decode(stream(wire))).isInstanceOf(EOFException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "zz\r\nhello\r\n0\r\n\r\n",       // not hex
      "\r\nhello\r\n0\r\n\r\n",         // empty size line
      "-5\r\nhello\r\n0\r\n\r\n",       // negative
      "5 5\r\nhello\r\n0\r\n\r\n",      // two numbers
      "0x5\r\nhello\r\n0\r\n\r\n",      // C-style prefix
      "10000000000000000\r\nx\r\n",     // beyond a long
  })
  void badSizeLineIsAnIoException(String wire) {
    assertThatThrownBy(() -> decode(stream(wire)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(EOFException.class)
        .hasMessageContaining("chunk size");
  }

  @Test
  void badSizeLineAfterAGoodChunkIsAnIoException() throws IOException {
    ChunkedInputStream chunked = new ChunkedInputStream(stream("3\r\nabc\r\nnope\r\n"));
    byte[] buffer = new byte[8];

    assertThat(chunked.read(buffer, 0, 8)).isEqualTo(3);
    assertThatThrownBy(() -> chunked.read(buffer, 0, 8))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(EOFException.class);
  }

  @Test
  void overlongSizeLineIsAnIoException() {
    String wire = "5;" + "x".repeat(5_000) + "\r\nhello\r\n0\r\n\r\n";

    assertThatThrownBy(() -> decode(stream(wire)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(EOFException.class);
  }

  @Test
  void dataLongerThanItsSizeIsAnIoException() {
    // The chunk says 3 bytes but 5 follow before the CRLF.
    assertThatThrownBy(() -> decode(stream("3\r\nhello\r\n0\r\n\r\n")))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(EOFException.class);
  }

  @Test
  void closeLeavesTheUnderlyingStreamOpen() throws IOException {
    boolean[] closed = {false};
    InputStream wire = new ByteArrayInputStream(
        "3\r\nabc\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)) {
      @Override
      public void close() {
        closed[0] = true;
      }
    };

    new ChunkedInputStream(wire).close();

    assertThat(closed[0]).isFalse();
  }

  private static String decode(InputStream in) throws IOException {
    ChunkedInputStream chunked = in instanceof ChunkedInputStream c ? c : new ChunkedInputStream(in);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[7]; // smaller than some chunks, so chunks take several reads
    int read;
    while ((read = chunked.read(buffer, 0, buffer.length)) != -1) {
      assertThat(read).as("a read of a non-empty buffer").isPositive();
      out.write(buffer, 0, read);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  private static String rest(ByteArrayInputStream wire) {
    return new String(wire.readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  private static ByteArrayInputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** Hands out one byte per read, as a slow socket may. */
  private static final class OneByteAtATime extends InputStream {
    private final byte[] data;
    private int position;

    OneByteAtATime(byte[] data) {
      this.data = data;
    }

    @Override
    public int read() {
      return position < data.length ? data[position++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      int next = read();
      if (next < 0) {
        return -1;
      }
      b[off] = (byte) next;
      return 1;
    }
  }

  /**
   * The bytes that have arrived so far; a read beyond them would block on a socket, and fails
   * the test here instead.
   */
  private static final class NothingMoreYet extends InputStream {
    private final byte[] data;
    private int position;

    NothingMoreYet(byte[] data) {
      this.data = data;
    }

    @Override
    public int read() {
      if (position >= data.length) {
        throw new AssertionError("read past the bytes that have arrived (would block)");
      }
      return data[position++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (position >= data.length) {
        throw new AssertionError("read past the bytes that have arrived (would block)");
      }
      int n = Math.min(len, data.length - position);
      System.arraycopy(data, position, b, off, n);
      position += n;
      return n;
    }
  }
}
