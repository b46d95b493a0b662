package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --event-loops}: one less than the processors by default, at least 1. */
class ServeEventLoopsOptionTest {
  @TempDir Path root;

  private int eventLoops(String... extra) {
    return ServeFlags.parsed(root, extra).settings().api().eventLoops();
  }

  @Test
  void defaultsToOneLessThanTheProcessors() {
    assertThat(eventLoops())
        .isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
  }

  @Test
  void takesTheCountGiven() {
    assertThat(eventLoops("--event-loops", "3")).isEqualTo(3);
  }

  @Test
  void refusesACountBelowOneByName() {
    assertThatThrownBy(() -> eventLoops("--event-loops", "0"))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessageStartingWith("invalid value for --event-loops: '0'");
    assertThatThrownBy(() -> eventLoops("--event-loops", "some"))
        .isInstanceOf(ServeCommand.StartupException.class)
        .hasMessageStartingWith("invalid value for --event-loops: 'some'");
  }
}
