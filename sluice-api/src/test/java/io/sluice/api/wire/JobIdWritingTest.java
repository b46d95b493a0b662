package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.engine.job.JobId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** An id written from its bytes is the same string value as its text, in both formats. */
class JobIdWritingTest {
  private interface Write {
    void to(JsonGenerator gen) throws IOException;
  }

  private static byte[] encode(Format format, Write write) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator gen = format.mapper().getFactory().createGenerator(out)) {
      gen.writeStartArray();
      write.to(gen);
      gen.writeEndArray();
    }
    return out.toByteArray();
  }

  @Test
  void anIdWrittenFromBytesEqualsItsTextInJsonAndMessagePack() throws IOException {
    SplittableRandom random = new SplittableRandom(25);
    for (int i = 0; i < 500; i++) {
      JobId id = i == 0 ? new JobId(0, 0) : new JobId(random.nextLong(), random.nextLong());
      for (Format format : Format.values()) {
        byte[] fromBytes = encode(format, gen -> JobWriter.writeId(gen, id));
        byte[] fromText = encode(format, gen -> gen.writeString(id.toString()));
        assertThat(fromBytes).as("%s in %s", id, format).isEqualTo(fromText);
      }
    }
  }

  @Test
  void manyIdsInOneBodyKeepTheirOwnText() throws IOException {
    // The MessagePack generator holds on to an ASCII value's array until the body ends.
    SplittableRandom random = new SplittableRandom(3);
    JobId[] ids = new JobId[50];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = new JobId(random.nextLong(), random.nextLong());
    }
    for (Format format : Format.values()) {
      byte[] fromBytes = encode(format, gen -> {
        for (JobId id : ids) {
          JobWriter.writeId(gen, id);
        }
      });
      byte[] fromText = encode(format, gen -> {
        for (JobId id : ids) {
          gen.writeString(id.toString());
        }
      });
      assertThat(fromBytes).as("%s", format).isEqualTo(fromText);
    }
  }

  @Test
  void aGeneratorWritingCharsGetsTheIdAsText() throws IOException {
    // The events feed writes its messages to a StringWriter.
    JobId id = new JobId(42, 4242);
    java.io.StringWriter text = new java.io.StringWriter();
    try (JsonGenerator gen = Format.JSON.mapper().getFactory().createGenerator(text)) {
      gen.writeStartArray();
      JobWriter.writeId(gen, id);
      gen.writeEndArray();
    }
    assertThat(text.toString()).isEqualTo("[\"" + id + "\"]");
  }
}
