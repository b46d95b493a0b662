package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RawChunksTest {
  /** Stands where a connection's guard sits: first in the pipeline. */
  private final EmbeddedChannel channel =
      new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  private final RawChunks chunks;

  RawChunksTest() {
    channel.pipeline().addFirst(ConnectionGuard.NAME, new ChannelInboundHandlerAdapter());
    chunks = RawChunks.on(channel.pipeline().context(ConnectionGuard.NAME));
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private String written() {
    ByteBuf out = channel.readOutbound();
    try {
      return out.toString(StandardCharsets.ISO_8859_1);
    } finally {
      out.release();
    }
  }

  @Test
  void writesOneWholeChunkWithItsHexadecimalSize() {
    String line = "{\"id\":\"" + "x".repeat(290) + "\"}\n";

    Future<Void> done = chunks.write(Buffer.buffer(line));

    assertThat(line.length()).isEqualTo(300);
    assertThat(written()).isEqualTo("12c\r\n" + line + "\r\n");
    assertThat(done.succeeded()).as("complete once flushed").isTrue();
    assertThat((Object) channel.readOutbound()).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 15, 16, 255, 256, 4095, 4096, 65_536, 1_048_577})
  void sizeLineIsTheLengthInLowercaseHexadecimalAtEveryDigitCount(int length) {
    String data = "y".repeat(length);

    chunks.write(Buffer.buffer(data));

    assertThat(written()).isEqualTo(Integer.toHexString(length) + "\r\n" + data + "\r\n");
  }

  @Test
  void writesTheChunkAsOneDirectBufferSoTheNativeTransportNeedsNoCopy() {
    chunks.write(Buffer.buffer("{}\n"));

    ByteBuf out = channel.readOutbound();
    try {
      assertThat(out.isDirect()).isTrue();
      assertThat(out.toString(StandardCharsets.ISO_8859_1)).isEqualTo("3\r\n{}\n\r\n");
    } finally {
      out.release();
    }
  }

  @Test
  void writesOnlyTheReadableBytesOfASlicedBuffer() {
    Buffer sliced = Buffer.buffer("skip{\"a\":1}\n").slice(4, 12);

    chunks.write(sliced);

    assertThat(written()).isEqualTo("8\r\n{\"a\":1}\n\r\n");
  }

  @Test
  void framesEncodedIntoANewChunkGoOutAfterTheirSizeLine() {
    ByteBuf chunk = chunks.newChunk(4);
    String frames = "{\"id\":\"" + "z".repeat(4_000) + "\"}\n";
    chunk.writeCharSequence(frames, StandardCharsets.US_ASCII);

    Future<Void> done = chunks.write(chunk);

    assertThat(written()).isEqualTo(Integer.toHexString(frames.length()) + "\r\n" + frames
        + "\r\n");
    assertThat(done.succeeded()).isTrue();
    assertThat(chunk.refCnt()).as("released once written").isZero();
  }

  @Test
  void aNewChunkLeftEmptyWritesNothingAndIsReleased() {
    ByteBuf chunk = chunks.newChunk(64);

    Future<Void> done = chunks.write(chunk);

    assertThat(done.succeeded()).isTrue();
    assertThat((Object) channel.readOutbound()).isNull();
    assertThat(chunk.refCnt()).isZero();
  }

  @Test
  void writesNothingForNoBytesSinceAnEmptyChunkWouldEndTheBody() {
    Future<Void> done = chunks.write(Buffer.buffer());

    assertThat(done.succeeded()).isTrue();
    assertThat((Object) channel.readOutbound()).isNull();
  }

  @Test
  void aFailedWriteFailsItsFuture() {
    channel.close();

    Future<Void> done = chunks.write(Buffer.buffer("{}\n"));

    assertThat(done.failed()).isTrue();
  }
}
