package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** ReadAhead: every item in order on the caller's thread; a failure on either side ends both. */
class ReadAheadTest {
  @Test
  void theConsumerSeesEveryItemInOrderOnTheCallingThread() {
    List<Integer> seen = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();

    ReadAhead.<Integer>run(sink -> IntStream.range(0, 10_000).forEach(sink::accept), item -> {
      seen.add(item);
      threads.add(Thread.currentThread());
    });

    assertThat(seen).containsExactlyElementsOf(IntStream.range(0, 10_000).boxed().toList());
    assertThat(threads).containsOnly(Thread.currentThread());
  }

  @Test
  void nothingProducedIsNothingConsumed() {
    List<Integer> seen = new ArrayList<>();

    ReadAhead.<Integer>run(sink -> { }, seen::add);

    assertThat(seen).isEmpty();
  }

  @Test
  void aProducerFailureReachesTheCallerAfterWhatCameBeforeIt() {
    List<Integer> seen = new ArrayList<>();

    assertThatThrownBy(() -> ReadAhead.<Integer>run(sink -> {
      IntStream.range(0, 1_000).forEach(sink::accept);
      throw new IllegalStateException("disk on fire");
    }, seen::add)).hasMessage("disk on fire");
    assertThat(seen).hasSize(1_000);
  }

  @Test
  void anErrorInTheProducerIsNotMistakenForTheEnd() {
    List<Integer> seen = new ArrayList<>();

    assertThatThrownBy(() -> ReadAhead.<Integer>run(sink -> {
      IntStream.range(0, 700).forEach(sink::accept);
      throw new OutOfMemoryError("decoding a huge record");
    }, seen::add)).isInstanceOf(OutOfMemoryError.class);
    assertThat(seen).hasSize(700);
  }

  @Test
  void aConsumerFailureStopsTheProducer() {
    AtomicInteger produced = new AtomicInteger();

    assertThatThrownBy(() -> ReadAhead.<Integer>run(sink -> {
      for (int i = 0; i < 10_000_000; i++) {
        produced.incrementAndGet();
        sink.accept(i);
      }
    }, item -> {
      if (item == 5_000) {
        throw new IllegalArgumentException("bad record");
      }
    })).hasMessage("bad record");
    assertThat(produced.get()).isLessThan(10_000_000);
  }
}
