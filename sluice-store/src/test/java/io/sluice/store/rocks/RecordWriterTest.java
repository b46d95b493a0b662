package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Records already on disk were written by a DataOutputStream: the layout must not move. */
class RecordWriterTest {
  @Test
  void writesWhatADataOutputStreamWrote() throws IOException {
    Random random = new Random(17);
    RecordWriter reused = new RecordWriter();
    for (int round = 0; round < 200; round++) {
      // Every other round refills one writer: a reset leaves nothing of the last record behind.
      RecordWriter writer = round % 2 == 0 ? new RecordWriter() : reused.reset();
      ByteArrayOutputStream expectedBytes = new ByteArrayOutputStream();
      DataOutputStream expected = new DataOutputStream(expectedBytes);
      for (int field = 0; field < 1 + random.nextInt(60); field++) {
        switch (random.nextInt(6)) {
          case 0 -> {
            int value = random.nextInt();
            writer.writeByte(value);
            expected.writeByte(value);
          }
          case 1 -> {
            int value = random.nextInt();
            writer.writeInt(value);
            expected.writeInt(value);
          }
          case 2 -> {
            long value = random.nextLong();
            writer.writeLong(value);
            expected.writeLong(value);
          }
          case 3 -> {
            float value = random.nextFloat() * 1e6f - 5e5f;
            writer.writeFloat(value);
            expected.writeFloat(value);
          }
          case 4 -> {
            // ASCII is written char by char; a later non-ASCII char starts the string again.
            String value = "a".repeat(random.nextInt(300)) + "é☃".repeat(random.nextInt(3))
                + "z".repeat(random.nextInt(3)) + round;
            writer.writeString(value);
            byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
            expected.writeInt(utf8.length);
            expected.write(utf8);
          }
          default -> {
            String value = random.nextBoolean() ? null : "v" + field;
            writer.writeOptionalString(value);
            expected.writeByte(value == null ? 0 : 1);
            if (value != null) {
              expected.writeInt(value.length());
              expected.write(value.getBytes(StandardCharsets.UTF_8));
            }
          }
        }
      }
      assertThat(writer.toByteArray()).as("round %d", round)
          .isEqualTo(expectedBytes.toByteArray());
    }
  }
}
