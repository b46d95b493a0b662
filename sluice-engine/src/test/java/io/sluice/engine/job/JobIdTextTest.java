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
    assertThat(JobId.parseOrNull(framed, 3)).isEqualTo(new JobId(hi, lo));
  }

  /** Both readers, of a string and of bytes in a larger array, against BigInteger. */
  private static void checkRead(String text) {
    JobId expected = null;
    if (text.length() == JobId.TEXT_LENGTH && text.chars().allMatch(
        c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'z')) {
      BigInteger value = new BigInteger(text, 36);
      if (value.bitLength() <= 128) {
        expected = new JobId(value.shiftRight(64).longValue(), value.longValue());
      }
    }
    assertThat(JobId.parseOrNull(text)).as(text).isEqualTo(expected);
    byte[] framed = ("<<" + text + ">>").getBytes(StandardCharsets.UTF_8);
    if (text.length() == JobId.TEXT_LENGTH && framed.length == JobId.TEXT_LENGTH + 4) {
      assertThat(JobId.parseOrNull(framed, 2)).as(text).isEqualTo(expected);
    }
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

  /** A chunk's last five digits are written as pairs of two: around every multiple of 36². */
  @Test
  void digitPairsRenderAroundEveryMultipleOfTheirBase() {
    for (long k = 0; k <= 36L * 36 * 36; k++) {
      for (long n = k * 1296 - 1; n <= k * 1296 + 1; n++) {
        if (n >= 0) {
          check(0, n);
          check(n, 60_466_176L * 4_000 + n);
        }
      }
    }
  }

  @Test
  void textsThatAreNoIdReadAsNone() {
    BigInteger largest = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
    String largestText = largest.toString(36);
    String justOver = largest.add(BigInteger.ONE).toString(36);
    for (String text : new String[] {largestText, justOver, "z".repeat(25), "0".repeat(24),
        "0".repeat(26), "", "0".repeat(24) + "A", "0".repeat(24) + "-", "0".repeat(24) + "\u00e9",
        "0".repeat(24) + "\u0130", "0".repeat(24) + "{", "0".repeat(24) + "/"}) {
      checkRead(text);
    }
    assertThat(JobId.parseOrNull(largestText)).isEqualTo(new JobId(-1, -1));
    assertThat(JobId.parseOrNull(justOver)).isNull();
    // Bytes above ASCII (negative as Java bytes), where a digit could stand.
    for (int b : new int[] {0x80, 0xB0, 0xE1, 0xFF}) {
      byte[] ascii = "0".repeat(JobId.TEXT_LENGTH).getBytes(StandardCharsets.US_ASCII);
      ascii[7] = (byte) b;
      assertThat(JobId.parseOrNull(ascii, 0)).as("byte %x", b).isNull();
    }
  }

  @Test
  void randomTextsReadAsTheirValueOrNone() {
    SplittableRandom random = new SplittableRandom(37);
    String alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABZ-:{\u00ff\u0100";
    for (int i = 0; i < 100_000; i++) {
      StringBuilder text = new StringBuilder();
      // Mostly the id alphabet, leading digits small enough that many stay below 2^128.
      text.append(alphabet.charAt(random.nextInt(random.nextInt(4) == 0 ? alphabet.length() : 8)));
      for (int j = 1; j < JobId.TEXT_LENGTH; j++) {
        boolean stray = random.nextInt(200) == 0;
        text.append(alphabet.charAt(random.nextInt(stray ? alphabet.length() : 36)));
      }
      checkRead(text.toString());
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
