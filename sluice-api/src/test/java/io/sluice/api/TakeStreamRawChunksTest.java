package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.api.http.RawChunks;
import io.sluice.api.http.RecordingAllocator;
import io.sluice.api.wire.StreamFormat;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.JobStore;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A take stream whose head is out writes its deliveries as raw chunks encoded in place: the
 * bytes on the wire, and that every chunk buffer goes back to its allocator, however the
 * encoding ends.
 */
class TakeStreamRawChunksTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<ByteBuf> made = new CopyOnWriteArrayList<>();
  private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  private final AtomicInteger resets = new AtomicInteger();
  private final RawChunks chunks;

  TakeStreamRawChunksTest() {
    channel.config().setAllocator(new RecordingAllocator(made));
    channel.pipeline().addFirst("guard", new ChannelInboundHandlerAdapter());
    chunks = RawChunks.on(channel.pipeline().context("guard"));
  }

  @AfterEach
  void close() throws Exception {
    channel.finishAndReleaseAll();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aDeliveryIsOneDirectChunkWithItsSizeLine() throws Exception {
    deliverOnTheLoop(storeThatHasNoPayloads(), job("{\"n\":1}"));

    ByteBuf out = channel.readOutbound();
    try {
      assertThat(out.isDirect()).isTrue();
      String chunk = out.toString(StandardCharsets.UTF_8);
      String line = chunk.substring(chunk.indexOf("\r\n") + 2, chunk.length() - 2);
      assertThat(line).startsWith("{\"id\":").contains("\"payload\":{\"n\":1}").endsWith("}\n");
      assertThat(chunk).isEqualTo(Integer.toHexString(line.length()) + "\r\n" + line + "\r\n");
    } finally {
      out.release();
    }
    assertThat(made).allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
  }

  @Test
  void aDeliveryWhoseJobsAreAllGoneWritesNothingAndReleasesItsChunk() throws Exception {
    deliverOnTheLoop(storeThatHasNoPayloads(), job(null));

    assertThat((Object) channel.readOutbound()).isNull();
    assertThat(made).isNotEmpty().allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
    assertThat(resets).hasValue(0);
  }

  @Test
  void aDeliveryThatCannotBeEncodedEndsTheStreamAndReleasesItsChunk() throws Exception {
    JobStore failing = store(() -> {
      throw new IllegalStateException("the store is closed");
    });

    deliverOnTheLoop(failing, job(null));

    assertThat((Object) channel.readOutbound()).isNull();
    assertThat(resets).hasValue(1);
    assertThat(made).isNotEmpty().allSatisfy(buf -> assertThat(buf.refCnt()).isZero());
  }

  private void deliverOnTheLoop(JobStore store, JobSnapshot job) throws Exception {
    Context context = vertx.getOrCreateContext();
    CompletableFuture<Void> done = new CompletableFuture<>();
    context.runOnContext(v -> {
      try {
        TakeStream stream = new TakeStream(vertx, response(), chunks, StreamFormat.NDJSON,
            new EngineGateway(idleEngineLoop()), store, 60_000, "w");
        stream.open(Set.of("q"), 16, HttpVersion.HTTP_1_1);
        stream.deliver(List.of(job));
        done.complete(null);
      } catch (Throwable e) {
        done.completeExceptionally(e);
      }
    });
    done.get(5, TimeUnit.SECONDS);
  }

  /** Takes the stream's commands and never runs them: no session is opened. */
  private static EngineLoop idleEngineLoop() {
    return new EngineLoop(null, null, null, null);
  }

  private static JobStore storeThatHasNoPayloads() {
    return store(() -> null);
  }

  private static JobStore store(java.util.function.Supplier<byte[]> readPayload) {
    return (JobStore) Proxy.newProxyInstance(TakeStreamRawChunksTest.class.getClassLoader(),
        new Class<?>[] {JobStore.class}, (proxy, method, args) -> {
          if (method.getName().equals("readPayload")) {
            return readPayload.get();
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }

  /** A job as dispatched; with a null payload, one whose payload must be read from the store. */
  private static JobSnapshot job(String payload) {
    return new JobSnapshot(new JobIdGenerator().next(1_000L), "t", "q", 32768,
        JobStatus.IN_FLIGHT, 1_000L, 0, null, null, null, 1_000L, 0L, 0L, 0L,
        payload == null ? null : payload.getBytes(StandardCharsets.UTF_8), List.of(), null, null);
  }

  /** A response whose head is written at once; a reset is counted. */
  private HttpServerResponse response() {
    return (HttpServerResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {HttpServerResponse.class}, (proxy, method, args) -> {
          switch (method.getName()) {
            case "writeHead" -> {
              return Future.succeededFuture();
            }
            case "reset" -> {
              resets.incrementAndGet();
              return Future.succeededFuture();
            }
            case "write" -> throw new AssertionError("a raw delivery went through Vert.x");
            default -> { }
          }
          Class<?> type = method.getReturnType();
          if (type == HttpServerResponse.class) {
            return proxy;
          }
          if (type == boolean.class) {
            return false;
          }
          return type.isPrimitive() && type != void.class ? 0 : null;
        });
  }
}
