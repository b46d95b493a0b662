package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Reading a take stream's NDJSON body: heartbeats, chunk boundaries, a cut-off job, and telling
 * when a burst has been read.
 */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TakeStreamTest {
  static final String HEAD = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
      + "Transfer-Encoding: chunked\r\n\r\n";

  static String job(String id) {
    return "{\"id\":\"" + id + "\",\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"n\":1}}\n";
  }

  static String chunk(String data) {
    return Integer.toHexString(data.length()) + "\r\n" + data + "\r\n";
  }

  private static TakeStream take(FakeHttpServer server) {
    return SluiceClient.builder(server.url()).build().jobs().take(List.of("q"), 4, null);
  }

  @Test
  void skipsHeartbeatsAndJoinsJobsSplitAcrossChunks() {
    String second = job("j2");
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(HEAD + chunk("\n") + chunk(job("j1")) + chunk("\n\n")
          + chunk(second.substring(0, 10)) + chunk(second.substring(10)) + chunk("\n")
          + "0\r\n\r\n");
    }); TakeStream stream = take(server)) {
      assertThat(stream.next().id()).isEqualTo("j1");
      assertThat(stream.next().id()).isEqualTo("j2");
      assertThat(stream.next()).as("end of stream").isNull();
    }
  }

  @Test
  void aJobCutOffByADroppedConnectionIsAConnectionFailure() {
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(HEAD + chunk(job("j1")) + chunk("{\"id\":\"j2\",\"ty"));
    }); TakeStream stream = take(server)) {
      assertThat(stream.next().id()).isEqualTo("j1");
      assertThatThrownBy(stream::next).isInstanceOf(ConnectionException.class);
    }
  }

  @Test
  void aMessagePackFrameCutOffIsAConnectionFailureButAnEndBetweenFramesIsNot() {
    String heartbeat = "\0\0\0\0";
    String cutOff = "\0\0\0\u0010\u0081\u00a2"; // announces 16 bytes, sends 2
    for (boolean cut : new boolean[] {false, true}) {
      String frames = heartbeat + (cut ? cutOff : "");
      try (FakeHttpServer server = FakeHttpServer.start(conn -> {
        conn.readRequest();
        conn.write("HTTP/1.1 200 OK\r\nContent-Type: application/vnd.zizq.msgpack-stream\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + chunk(frames) + "0\r\n\r\n");
      }); TakeStream stream = SluiceClient.builder(server.url()).format(WireFormat.MSGPACK)
          .build().jobs().take(List.of("q"), 4, null)) {
        if (cut) {
          assertThatThrownBy(stream::next).isInstanceOf(ConnectionException.class);
        } else {
          assertThat(stream.next()).isNull();
        }
      }
    }
  }

  @Test
  void heartbeatsKeepTheIdleClockAtZero() throws Exception {
    CountDownLatch heartbeatsDone = new CountDownLatch(1);
    CountDownLatch sendJob = new CountDownLatch(1);
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(HEAD);
      for (int i = 0; i < 12; i++) {
        Thread.sleep(50);
        conn.write(chunk("\n"));
      }
      heartbeatsDone.countDown();
      sendJob.await(10, TimeUnit.SECONDS);
      conn.write(chunk(job("late")) + "0\r\n\r\n");
    }); TakeStream stream = take(server)) {
      CompletableFuture<Job> next = CompletableFuture.supplyAsync(stream::next);
      assertThat(heartbeatsDone.await(10, TimeUnit.SECONDS)).isTrue();
      // 600 ms of waiting, but the last heartbeat arrived moments ago.
      assertThat(Duration.ofNanos(stream.idleNanos())).isLessThan(Duration.ofMillis(300));
      sendJob.countDown();
      assertThat(next.get(10, TimeUnit.SECONDS).id()).isEqualTo("late");
    }
  }

  @Test
  void aDrainedStreamIsReportedOnceItsBurstIsReadNotBetweenJobsOfTheBurst() throws Exception {
    CountDownLatch sendThird = new CountDownLatch(1);
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(HEAD + chunk(job("j1")) + chunk(job("j2"))); // one burst
      sendThird.await(10, TimeUnit.SECONDS);
      conn.write(chunk(job("j3")) + "0\r\n\r\n");
    }); TakeStream stream = take(server)) {
      AtomicInteger returned = new AtomicInteger();
      List<Integer> drainedAfter = new CopyOnWriteArrayList<>();
      CountDownLatch waitingAfterBurst = new CountDownLatch(1);
      stream.onDrained(() -> {
        drainedAfter.add(returned.get());
        if (returned.get() == 2) {
          waitingAfterBurst.countDown();
        }
      });
      CompletableFuture<List<String>> ids = CompletableFuture.supplyAsync(() -> {
        List<String> read = new CopyOnWriteArrayList<>();
        Job job;
        while ((job = stream.next()) != null) {
          read.add(job.id());
          returned.incrementAndGet();
        }
        return read;
      });

      assertThat(waitingAfterBurst.await(10, TimeUnit.SECONDS))
          .as("drained while waiting for more after the burst").isTrue();
      sendThird.countDown();
      assertThat(ids.get(10, TimeUnit.SECONDS)).containsExactly("j1", "j2", "j3");
      assertThat(drainedAfter).as("never between two jobs of one burst").doesNotContain(1);
    }
  }
}
