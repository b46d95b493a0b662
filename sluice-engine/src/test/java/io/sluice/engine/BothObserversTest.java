package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BothObserversTest {
  private final List<String> heard = new ArrayList<>();

  private EngineObserver recording(String name) {
    return new EngineObserver() {
      @Override
      public void enqueued(String queue) {
        heard.add(name + " enqueued " + queue);
      }

      @Override
      public void dispatched(String queue, long waitedMs) {
        heard.add(name + " dispatched " + queue + " " + waitedMs);
      }

      @Override
      public void completed(String queue, long ranMs) {
        heard.add(name + " completed " + queue + " " + ranMs);
      }

      @Override
      public void failed(String queue, long ranMs, boolean dead) {
        heard.add(name + " failed " + queue + " " + ranMs + " " + dead);
      }

      @Override
      public void committed(boolean synced, long nanos) {
        heard.add(name + " committed " + synced + " " + nanos);
      }

      @Override
      public void published() {
        heard.add(name + " published");
      }
    };
  }

  @Test
  void tellsTheFirstThenTheSecondOfEverything() {
    EngineObserver both = EngineObserver.both(recording("one"), recording("two"));

    both.enqueued("q");
    both.dispatched("q", 5);
    both.completed("q", 7);
    both.failed("q", 9, true);
    both.committed(false, 11);
    both.published();

    assertThat(heard).containsExactly(
        "one enqueued q", "two enqueued q",
        "one dispatched q 5", "two dispatched q 5",
        "one completed q 7", "two completed q 7",
        "one failed q 9 true", "two failed q 9 true",
        "one committed false 11", "two committed false 11",
        "one published", "two published");
  }
}
