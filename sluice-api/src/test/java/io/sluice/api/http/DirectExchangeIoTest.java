package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DirectExchangeIoTest {
  private final List<ByteBuf> written = new ArrayList<>();
  private final List<Integer> statuses = new ArrayList<>();
  private final DirectExchangeIo io = exchangeAllocatingFrom(UnpooledByteBufAllocator.DEFAULT);

  DirectExchangeIoTest() {
    io.whenHeadSent(statuses::add);
  }

  /** A POST /jobs read whole, whose answers go to {@link #written}. */
  private DirectExchangeIo exchangeAllocatingFrom(ByteBufAllocator allocator) {
    return new DirectExchangeIo(
        new DirectHead(HttpMethod.POST, "/jobs", null, "application/json", null),
        new byte[0], () -> false, written::add, allocator);
  }

  @AfterEach
  void release() {
    written.forEach(ByteBuf::release);
  }

  private String onlyAnswer() {
    assertThat(written).hasSize(1);
    return written.get(0).toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void answersWithTheStatusLineContentTypeAndLengthVertxWrites() {
    String body = "{\"id\":\"03fxn1d7qz\"}";

    io.answer(201, "application/json", Buffer.buffer(body));

    assertThat(onlyAnswer()).isEqualTo("HTTP/1.1 201 Created\r\n"
        + "Content-Type: application/json\r\ncontent-length: 19\r\n\r\n" + body);
    assertThat(statuses).containsExactly(201);
    assertThat(io.answered()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 9, 10, 99, 100, 12_345, 1_048_576})
  void writesTheContentLengthInDecimalAtEveryDigitCount(int length) {
    String body = "b".repeat(length);

    io.answer(200, "application/x-ndjson", Buffer.buffer(body));

    assertThat(onlyAnswer()).isEqualTo("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
        + "content-length: " + length + "\r\n\r\n" + body);
  }

  @ParameterizedTest
  @ValueSource(ints = {100, 204, 400, 404, 409, 413, 422, 429, 503, 599, 299, 600, 999})
  void everyStatusGetsTheReasonPhraseNettyNames(int status) {
    io.answer(status, "application/json", Buffer.buffer("{}"));

    assertThat(onlyAnswer()).startsWith("HTTP/1.1 " + status + " "
        + HttpResponseStatus.valueOf(status).reasonPhrase() + "\r\nContent-Type: ");
  }

  @Test
  void answersNoContentWithABareStatusLine() {
    io.answerNoContent();

    assertThat(onlyAnswer()).isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
    assertThat(statuses).containsExactly(204);
  }

  @Test
  void sendsOnlyTheReadableBytesOfASlicedBody() {
    io.answer(200, "application/json", Buffer.buffer("xx{\"ok\":true}yy").slice(2, 13));

    assertThat(onlyAnswer()).endsWith("content-length: 11\r\n\r\n{\"ok\":true}");
  }

  @Test
  void writesTheAnswerAsOneDirectBufferSoTheNativeTransportNeedsNoCopy() {
    io.answer(201, "application/json", Buffer.buffer("{}"));

    assertThat(written.get(0).isDirect()).isTrue();
  }

  @Test
  void aStatusSinkThatThrowsLeavesNoBufferBehind() {
    List<ByteBuf> made = new ArrayList<>();
    DirectExchangeIo failing = exchangeAllocatingFrom(new RecordingAllocator(made));
    failing.whenHeadSent(status -> {
      throw new IllegalStateException("metrics broke");
    });

    assertThatThrownBy(() -> failing.answer(201, "application/json", Buffer.buffer("{}")))
        .hasMessage("metrics broke");
    assertThat(written).isEmpty();
    assertThat(made).singleElement().satisfies(buf -> assertThat(buf.refCnt()).isZero());
  }

  @Test
  void aSecondAnswerIsRefusedAndWritesNothing() {
    io.answerNoContent();

    assertThatThrownBy(() -> io.answer(200, "application/json", Buffer.buffer("{}")))
        .isInstanceOf(IllegalStateException.class);
    assertThat(written).hasSize(1);
  }
}
