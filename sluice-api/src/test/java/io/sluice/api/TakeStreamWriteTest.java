package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.wire.StreamFormat;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * When the engine turns on the stream's own event loop, a delivery is written before
 * {@code deliver} returns, so it goes out ahead of the turn's answers (queued on the loop as
 * their futures complete); from any other thread it is handed to the stream's loop.
 */
class TakeStreamWriteTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<String> written = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Thread> firstWriter = new CompletableFuture<>();
  private final AtomicInteger resets = new AtomicInteger();
  private volatile boolean failWrites;

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aDeliveryOnTheStreamsLoopIsWrittenBeforeDeliverReturns() throws Exception {
    Context context = vertx.getOrCreateContext();
    CompletableFuture<List<String>> seenOnReturn = new CompletableFuture<>();
    context.runOnContext(v -> {
      newStream().deliver(List.of(job()));
      seenOnReturn.complete(List.copyOf(written));
    });

    assertThat(seenOnReturn.get(5, TimeUnit.SECONDS)).singleElement()
        .satisfies(line -> assertThat(line).startsWith("{\"id\":").endsWith("\n"));
  }

  @Test
  void aDeliveryFromAnotherThreadIsWrittenOnTheStreamsLoop() throws Exception {
    Context context = vertx.getOrCreateContext();
    CompletableFuture<Thread> loop = new CompletableFuture<>();
    CompletableFuture<TakeStream> created = new CompletableFuture<>();
    context.runOnContext(v -> {
      loop.complete(Thread.currentThread());
      created.complete(newStream());
    });
    TakeStream stream = created.get(5, TimeUnit.SECONDS);

    stream.deliver(List.of(job()));

    assertThat(firstWriter.get(5, TimeUnit.SECONDS)).isSameAs(loop.get());
    assertThat(written).singleElement()
        .satisfies(line -> assertThat(line).contains("\"status\":\"in_flight\""));
  }

  /** A write that fails ends this stream (its jobs are requeued) and never reaches the engine. */
  @Test
  void aFailedWriteOnTheLoopEndsTheStreamInsteadOfThrowing() throws Exception {
    failWrites = true;
    Context context = vertx.getOrCreateContext();
    CompletableFuture<Throwable> escaped = new CompletableFuture<>();
    context.runOnContext(v -> {
      try {
        newStream().deliver(List.of(job()));
        escaped.complete(null);
      } catch (Throwable e) {
        escaped.complete(e);
      }
    });

    assertThat(escaped.get(5, TimeUnit.SECONDS)).isNull();
    assertThat(resets).hasValue(1);
    assertThat(written).isEmpty();
  }

  private TakeStream newStream() {
    // No session is opened, so neither the engine nor the store is asked for anything.
    return new TakeStream(vertx, recordingResponse(), null, StreamFormat.NDJSON, null, null,
        60_000, "w");
  }

  private static JobSnapshot job() {
    return new JobSnapshot(new JobIdGenerator().next(1_000L), "t", "q", 32768,
        JobStatus.IN_FLIGHT, 1_000L, 0, null, null, null, 1_000L, 0L, 0L, 0L,
        "{}".getBytes(StandardCharsets.UTF_8), List.of(), null, null);
  }

  /** A response that records each write and reports it done at once. */
  private HttpServerResponse recordingResponse() {
    return (HttpServerResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {HttpServerResponse.class}, (proxy, method, args) -> {
          if (method.getName().equals("write") && args != null && args.length == 1
              && args[0] instanceof Buffer buffer) {
            if (failWrites) {
              throw new IllegalStateException("the connection is gone");
            }
            written.add(buffer.toString(StandardCharsets.UTF_8));
            firstWriter.complete(Thread.currentThread());
            return Future.succeededFuture();
          }
          if (method.getName().equals("reset")) {
            resets.incrementAndGet();
          }
          Class<?> type = method.getReturnType();
          if (type == boolean.class) {
            return false;
          }
          return type.isPrimitive() && type != void.class ? 0 : null;
        });
  }
}
