package io.sluice.client;

import static io.sluice.client.TakeStreamTest.HEAD;
import static io.sluice.client.TakeStreamTest.chunk;
import static io.sluice.client.TakeStreamTest.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reliefs of a take loop whose thread runs a job: the hand-overs, driven step by step. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class TakeLoopTest {

  @Test
  void aReliefThatReopenedTheStreamKeepsItWhenTheTakeThreadsJobEnds() throws Exception {
    CountDownLatch endFirstStream = new CountDownLatch(1);
    CountDownLatch sendThirdJob = new CountDownLatch(1);
    try (FakeHttpServer server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      if (conn.index == 0) {
        conn.write(HEAD + chunk(job("j1")));
        endFirstStream.await();
        conn.write("0\r\n\r\n");
      } else if (conn.index == 1) {
        conn.write(HEAD + chunk(job("j2")));
        sendThirdJob.await();
        conn.write(chunk(job("j3")));
        conn.awaitClientClose(Duration.ofSeconds(20));
      }
    })) {
      CountDownLatch firstRunning = new CountDownLatch(1);
      CountDownLatch secondRunning = new CountDownLatch(1);
      CountDownLatch releaseFirst = new CountDownLatch(1);
      CountDownLatch releaseSecond = new CountDownLatch(1);
      Map<String, String> ranOn = new ConcurrentHashMap<>();
      List<String> handedOn = new CopyOnWriteArrayList<>();
      Predicate<Job> runHere = job -> {
        ranOn.put(job.id(), Thread.currentThread().getName());
        switch (job.id()) {
          case "j1" -> {
            firstRunning.countDown();
            awaitQuietly(releaseFirst);
          }
          case "j2" -> {
            secondRunning.countDown();
            awaitQuietly(releaseSecond);
          }
          default -> {
            return false;
          }
        }
        return true;
      };
      TakeLoop loop = new TakeLoop(SluiceClient.builder(server.url()).build().jobs(), List.of("q"),
          4, null, new Semaphore(4), job -> handedOn.add(job.id()), runHere, () -> { },
          () -> { }, new ReconnectDelay(Duration.ofMillis(10), Duration.ofMillis(50)), () -> false);
      Thread take = new Thread(loop, "test-take");
      take.setDaemon(true);
      take.start();
      try {
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        loop.relieveStalled(() -> releaseFirst.getCount() > 0);
        // The stream ends while the relief reads it: the relief reopens it and runs the loop.
        endFirstStream.countDown();
        assertThat(secondRunning.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ranOn.get("j2")).isEqualTo("test-take-relief");

        // The take thread's job ends while the relief runs the loop: it leaves without touching
        // the stream the relief reads, nor what it hands on.
        releaseFirst.countDown();
        take.join(10_000);
        assertThat(take.isAlive()).as("the take thread after its job").isFalse();
        assertThat(loop.reader().getName()).isEqualTo("test-take-relief");

        // The relief's own job stalls: a relief of the relief reads the reopened stream.
        loop.relieveStalled(() -> releaseSecond.getCount() > 0);
        sendThirdJob.countDown();
        Await.until(() -> handedOn.contains("j3"),
            "the third job to be read while the second runs");
        assertThat(releaseSecond.getCount()).as("the second job still running").isEqualTo(1);
      } finally {
        releaseFirst.countDown();
        releaseSecond.countDown();
        loop.close(take);
      }
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
