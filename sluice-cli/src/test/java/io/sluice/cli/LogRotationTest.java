package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cli.LogFileConfig.Rotation;
import io.sluice.engine.ManualClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log files written through the Logback set-up of {@code sluice serve}: rotated at UTC day or hour
 * boundaries and by size, with at most {@code --log-max-files} rotated files kept, the newest as
 * {@code sluice.log.1}. Time comes from a {@link ManualClock}.
 */
@ExtendWith(RestoresDefaultLogging.class)
class LogRotationTest {
  private static final Logger LOG = LoggerFactory.getLogger("io.sluice.test.rotation");
  private static final long NO_SIZE_LIMIT = Long.MAX_VALUE;

  @TempDir Path dir;

  private ManualClock clock;

  private void configure(String startsAt, Rotation rotation, long maxBytes, int maxFiles) {
    clock = new ManualClock(Instant.parse(startsAt).toEpochMilli());
    LoggingSetup.configure("compact", "info", new LogFileConfig(dir, rotation, maxBytes, maxFiles),
        clock);
  }

  @Nested
  class BySize {
    @Test
    void rotatesOnceTheFileReachesTheLimitAndKeepsOnlyTheNewestRotatedFiles() throws IOException {
      configure("2026-12-01T10:00:00Z", Rotation.NEVER, 2_000, 3);

      for (int i = 0; i < 500; i++) {
        LOG.info("line {} {}", String.format("%05d", i), "x".repeat(40));
      }

      assertThat(fileNames()).containsExactlyInAnyOrder(
          "sluice.log", "sluice.log.1", "sluice.log.2", "sluice.log.3");
      int longestLine = 0;
      for (String name : fileNames()) {
        for (String line : Files.readAllLines(dir.resolve(name))) {
          longestLine = Math.max(longestLine, line.length() + 1);
        }
      }
      for (String name : fileNames()) {
        assertThat(Files.size(dir.resolve(name))).as(name).isLessThan(2_000L + longestLine);
      }
      for (String rotated : List.of("sluice.log.1", "sluice.log.2", "sluice.log.3")) {
        assertThat(Files.size(dir.resolve(rotated))).as(rotated).isGreaterThanOrEqualTo(2_000L);
      }
      List<Integer> kept = lineNumbers("sluice.log.3", "sluice.log.2", "sluice.log.1",
          "sluice.log");
      assertThat(kept).as("an unbroken run of the newest lines, oldest file first")
          .last().isEqualTo(499);
      assertThat(kept).isEqualTo(range(kept.get(0), 500));
    }

    @Test
    void keepsMoreRotatedFilesThanLogbacksOwnCapOfTwenty() {
      configure("2026-12-01T10:00:00Z", Rotation.NEVER, 1, 25);

      for (int i = 0; i < 40; i++) {
        LOG.info("line {}", i);
      }

      assertThat(fileNames()).hasSize(26).contains("sluice.log", "sluice.log.25");
    }

    @Test
    void neverRotatesOnlyBySize() {
      configure("2026-12-01T10:00:00Z", Rotation.NEVER, NO_SIZE_LIMIT, 3);
      LOG.info("first");

      clock.advance(Duration.ofDays(400));
      LOG.info("a year later");

      assertThat(fileNames()).containsExactly("sluice.log");
    }
  }

  @Nested
  class Daily {
    @Test
    void rotatesAtTheFirstLineOfTheNextUtcDay() throws IOException {
      configure("2026-12-01T00:00:00Z", Rotation.DAILY, NO_SIZE_LIMIT, 3);
      LOG.info("midnight");
      clock.advance(Duration.ofDays(1).minusMillis(1));
      LOG.info("last millisecond of the day");
      assertThat(fileNames()).containsExactly("sluice.log");

      clock.advanceMs(1);
      LOG.info("next day");

      assertThat(fileNames()).containsExactlyInAnyOrder("sluice.log", "sluice.log.1");
      assertThat(messages("sluice.log.1")).containsExactly("midnight", "last millisecond of the day");
      assertThat(messages("sluice.log")).containsExactly("next day");
    }

    @Test
    void alsoRotatesBySizeWithinTheDay() {
      configure("2026-12-01T10:00:00Z", Rotation.DAILY, 100, 5);

      for (int i = 0; i < 3; i++) {
        LOG.info("a line longer than the limit {}", "x".repeat(100));
      }

      assertThat(fileNames()).containsExactlyInAnyOrder("sluice.log", "sluice.log.1",
          "sluice.log.2");
    }

    @Test
    void keepsOnlyTheNewestRotatedFiles() throws IOException {
      configure("2026-12-01T12:00:00Z", Rotation.DAILY, NO_SIZE_LIMIT, 2);

      for (int day = 1; day <= 5; day++) {
        LOG.info("day {}", day);
        clock.advance(Duration.ofDays(1));
      }
      LOG.info("day 6");

      assertThat(fileNames()).containsExactlyInAnyOrder("sluice.log", "sluice.log.1",
          "sluice.log.2");
      assertThat(messages("sluice.log.2")).containsExactly("day 4");
      assertThat(messages("sluice.log.1")).containsExactly("day 5");
      assertThat(messages("sluice.log")).containsExactly("day 6");
    }

    @Test
    void aFileLeftByAnEarlierRunOnAnEarlierDayIsRotatedAtTheFirstLine() throws IOException {
      Files.writeString(dir.resolve("sluice.log"), "yesterday's line\n");
      Files.setLastModifiedTime(dir.resolve("sluice.log"),
          FileTime.from(Instant.parse("2026-11-30T18:00:00Z")));
      configure("2026-12-01T09:00:00Z", Rotation.DAILY, NO_SIZE_LIMIT, 3);

      LOG.info("today");

      assertThat(Files.readAllLines(dir.resolve("sluice.log.1")))
          .containsExactly("yesterday's line");
      assertThat(messages("sluice.log")).containsExactly("today");
    }
  }

  @Nested
  class Hourly {
    @Test
    void rotatesAtTheFirstLineOfTheNextHour() throws IOException {
      configure("2026-12-01T10:00:00Z", Rotation.HOURLY, NO_SIZE_LIMIT, 3);
      LOG.info("ten o'clock");
      clock.advance(Duration.ofHours(1).minusMillis(1));
      LOG.info("last millisecond of the hour");
      assertThat(fileNames()).containsExactly("sluice.log");

      clock.advanceMs(1);
      LOG.info("eleven o'clock");

      assertThat(messages("sluice.log.1"))
          .containsExactly("ten o'clock", "last millisecond of the hour");
      assertThat(messages("sluice.log")).containsExactly("eleven o'clock");
    }

    @Test
    void hoursWithoutALineLeaveNoEmptyFiles() throws IOException {
      configure("2026-12-01T10:30:00Z", Rotation.HOURLY, NO_SIZE_LIMIT, 5);
      LOG.info("before the quiet");

      clock.advance(Duration.ofHours(3));
      LOG.info("after the quiet");

      assertThat(fileNames()).containsExactlyInAnyOrder("sluice.log", "sluice.log.1");
      assertThat(messages("sluice.log.1")).containsExactly("before the quiet");
    }

    @Test
    void keepsOnlyTheNewestRotatedFiles() throws IOException {
      configure("2026-12-01T10:00:00Z", Rotation.HOURLY, NO_SIZE_LIMIT, 3);

      for (int hour = 10; hour < 22; hour++) {
        LOG.info("hour {}", hour);
        clock.advance(Duration.ofHours(1));
      }
      LOG.info("hour 22");

      assertThat(fileNames()).containsExactlyInAnyOrder("sluice.log", "sluice.log.1",
          "sluice.log.2", "sluice.log.3");
      assertThat(messages("sluice.log.3")).containsExactly("hour 19");
      assertThat(messages("sluice.log")).containsExactly("hour 22");
    }
  }

  private List<String> fileNames() {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(path -> path.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** The messages of a file in the compact format, without timestamp, level, logger and thread. */
  private List<String> messages(String name) throws IOException {
    return Files.readAllLines(dir.resolve(name)).stream()
        .map(line -> line.substring(line.indexOf("] ") + 2))
        .toList();
  }

  private List<Integer> lineNumbers(String... oldestFirst) throws IOException {
    List<Integer> numbers = new ArrayList<>();
    for (String name : oldestFirst) {
      for (String message : messages(name)) {
        numbers.add(Integer.parseInt(message.split(" ")[1]));
      }
    }
    return numbers;
  }

  private static List<Integer> range(int fromInclusive, int toExclusive) {
    List<Integer> numbers = new ArrayList<>();
    for (int i = fromInclusive; i < toExclusive; i++) {
      numbers.add(i);
    }
    return numbers;
  }
}
