package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The 25-character form: base 36 of the 128-bit value, zero-padded, and read back exactly. */
class JobIdTextTest {
  private static String reference(long hi, long lo) {
    BigInteger value = new BigInteger(1, new byte[] {
        (byte) (hi >>> 56), (byte) (hi >>> 48), (byte) (hi >>> 40), (byte) (hi >>> 32),
        (byte) (hi >>> 24), (byte) (hi >>> 16), (byte) (hi >>> 8), (byte) hi,
        (byte) (lo >>> 56), (byte) (lo >>> 48), (byte) (lo >>> 40), (byte) (lo >>> 32),
        (byte) (lo >>> 24), (byte) (lo >>> 16), (byte) (lo >>> 8), (byte) lo});
    String digits = value.toString(36);
    return "0".repeat(JobId.TEXT_LENGTH - digits.length()) + digits;
  }

  private static void check(long hi, long lo) {
    String text = new JobId(hi, lo).toString();
    assertThat(text).isEqualTo(reference(hi, lo));
    byte[] framed = "<".repeat(JobId.TEXT_LENGTH + 6).getBytes(StandardCharsets.US_ASCII);
    new JobId(hi, lo).renderInto(framed, 3);
    assertThat(new String(framed, StandardCharsets.US_ASCII))
        .isEqualTo("<<<" + reference(hi, lo) + "<<<");
    assertThat(JobId.parseOrNull(text)).isEqualTo(new JobId(hi, lo));
  }

  @Test
  void extremesRenderAsBaseThirtySix() {
    long[] edges = {0, 1, 35, 36, 60_466_175, 60_466_176, 0xFFFFFFFFL, 0x100000000L,
        Long.MAX_VALUE, Long.MIN_VALUE, -1};
    for (long hi : edges) {
      for (long lo : edges) {
        check(hi, lo);
      }
    }
  }

  @Test
  void randomIdsRenderAsBaseThirtySix() {
    SplittableRandom random = new SplittableRandom(36);
    for (int i = 0; i < 200_000; i++) {
      check(random.nextLong(), random.nextLong());
    }
  }

  @Test
  void generatedIdsRenderInTheOrderTheyWereMade() {
    JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(5));
    String previous = "";
    for (int i = 0; i < 10_000; i++) {
      JobId id = ids.next(1_764_000_000_000L + i / 100);
      check(id.hi(), id.lo());
      assertThat(id.toString()).isGreaterThan(previous);
      previous = id.toString();
    }
  }
}
