package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Jobs and enqueue answers laid out byte by byte are exactly what the generic writer writes. */
class PlainJobWriterTest {
  private static final String[] NAMES = {
      "emails", "q", "a-b_c.d:e", "x".repeat(300), "with space", "quote\"d", "back\\slash",
      "tab\there", "é", "☃snow", "ctrl\u0001", "tilde~", "del\u007f", "a/b"};
  private static final long[] NUMBERS = {
      0, 1, 9, 10, 99, 100, 1_733_000_000_000L, Long.MAX_VALUE, -1, -10, Long.MIN_VALUE};

  private static JobSnapshot job(SplittableRandom random) {
    boolean plain = random.nextInt(3) > 0;
    long[] times = new long[4];
    for (int i = 0; i < times.length; i++) {
      times[i] = random.nextBoolean() ? Job.NONE : number(random);
    }
    return new JobSnapshot(new JobId(random.nextLong(), random.nextLong()),
        NAMES[random.nextInt(NAMES.length)], NAMES[random.nextInt(NAMES.length)],
        random.nextInt(8) == 0 ? -random.nextInt(70_000) : random.nextInt(65_536),
        JobStatus.values()[random.nextInt(JobStatus.values().length)],
        number(random), random.nextInt(1_000),
        plain || random.nextBoolean() ? null : random.nextInt(100),
        plain || random.nextBoolean() ? null : new BackoffPolicy(100, 2.5f, 10),
        plain ? (random.nextBoolean() ? null : new RetentionPolicy(null, null))
            : new RetentionPolicy(random.nextBoolean() ? null : 5_000L, 7_000L),
        times[0], times[1], times[2], times[3], null,
        plain || random.nextBoolean() ? List.of() : List.of(new Binding("b", 2)),
        plain || random.nextBoolean() ? null : new UniqueKey("u", UniqueKey.Scope.ACTIVE),
        plain || random.nextBoolean() ? null : new BatchConfig("k", "true", "."),
        random.nextInt(5));
  }

  private static long number(SplittableRandom random) {
    return random.nextBoolean() ? NUMBERS[random.nextInt(NUMBERS.length)] : random.nextLong();
  }

  /** What a test writes into one body. */
  private interface Body {
    void write(JsonGenerator gen) throws IOException;
  }

  /** The body as text (JSON) or hex (MessagePack), from a generator writing bytes. */
  private static String encode(Format format, Body body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator gen = format.mapper().getFactory().createGenerator(out)) {
      body.write(gen);
    }
    return format == Format.JSON ? out.toString(StandardCharsets.UTF_8)
        : HexFormat.of().formatHex(out.toByteArray());
  }

  private interface Answers {
    void write(JsonGenerator gen, JobSnapshot job, boolean duplicate, boolean folded)
        throws IOException;
  }

  /** A bulk answer's body: long enough to cross the generator's buffer many times. */
  private static String body(Format format, List<JobSnapshot> jobs, long seed, Answers answers)
      throws IOException {
    SplittableRandom flags = new SplittableRandom(seed);
    return encode(format, gen -> {
      gen.writeStartObject();
      gen.writeArrayFieldStart("jobs");
      for (JobSnapshot job : jobs) {
        answers.write(gen, job, flags.nextBoolean(), flags.nextBoolean());
      }
      gen.writeEndArray();
      gen.writeEndObject();
    });
  }

  @Test
  void answersMatchTheGenericWriterInBothFormats() throws IOException {
    SplittableRandom random = new SplittableRandom(82);
    for (int round = 0; round < 20; round++) {
      List<JobSnapshot> jobs = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        jobs.add(job(random));
      }
      for (Format format : Format.values()) {
        PlainJobWriter writer = new PlainJobWriter();
        String laidOut = body(format, jobs, round, writer::writeEnqueued);
        String generic = body(format, jobs, round, JobWriter::writeEnqueued);
        assertThat(laidOut).as("round %d in %s", round, format).isEqualTo(generic);
      }
    }
  }

  @Test
  void aSingleAnswerMatchesTheGenericWriter() throws IOException {
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 2_000; i++) {
      JobSnapshot job = job(random);
      String laidOut = encode(Format.JSON,
          gen -> new PlainJobWriter().writeEnqueued(gen, job, false, true));
      String generic = encode(Format.JSON, gen -> JobWriter.writeEnqueued(gen, job, false, true));
      assertThat(laidOut).isEqualTo(generic);
    }
  }

  private static final byte[][] PAYLOADS = {
      null, "null".getBytes(), "{}".getBytes(), "[1,2.5,\"x\"]".getBytes(),
      "{\"name\":\"é☃\",\"n\":-3}".getBytes(StandardCharsets.UTF_8),
      ("\"" + "y".repeat(4_094) + "\"").getBytes(), ("\"" + "z".repeat(9_000) + "\"").getBytes()};

  /** Take-stream lines: the job with its payload, or without when there is none. */
  @Test
  void jobsWithTheirPayloadsMatchTheGenericWriter() throws IOException {
    SplittableRandom random = new SplittableRandom(64);
    for (int round = 0; round < 20; round++) {
      List<JobSnapshot> jobs = new ArrayList<>();
      List<byte[]> payloads = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        jobs.add(job(random));
        payloads.add(PAYLOADS[random.nextInt(PAYLOADS.length)]);
      }
      for (Format format : Format.values()) {
        PlainJobWriter writer = new PlainJobWriter();
        String laidOut = lines(format, jobs, payloads,
            (gen, job, payload) -> writer.writeJob(gen, job, payload));
        String generic = lines(format, jobs, payloads, JobWriter::writeJob);
        assertThat(laidOut).as("round %d in %s", round, format).isEqualTo(generic);
      }
    }
  }

  /**
   * Straight to a stream, without a generator: a job laid out is exactly the generic writer's
   * JSON; a job declined writes nothing, so the caller can hand it to a generator instead.
   */
  @Test
  void jobsLaidOutStraightToAStreamMatchTheGenericWriter() throws IOException {
    SplittableRandom random = new SplittableRandom(65);
    PlainJobWriter writer = new PlainJobWriter();
    int laidOut = 0;
    int declined = 0;
    for (int i = 0; i < 2_000; i++) {
      JobSnapshot job = job(random);
      byte[] payload = PAYLOADS[random.nextInt(PAYLOADS.length)];
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      if (writer.writeJob(out, job, payload)) {
        laidOut++;
        assertThat(out.toString(StandardCharsets.UTF_8)).as("job %d", i)
            .isEqualTo(encode(Format.JSON, gen -> JobWriter.writeJob(gen, job, payload)));
      } else {
        declined++;
        assertThat(out.size()).as("bytes written for declined job %d", i).isZero();
      }
    }
    assertThat(laidOut).as("jobs laid out").isPositive();
    assertThat(declined).as("jobs declined").isPositive();
  }

  private interface Jobs {
    void write(JsonGenerator gen, JobSnapshot job, byte[] payload) throws IOException;
  }

  /** Jobs one per line at the root, as a take stream writes them. */
  private static String lines(Format format, List<JobSnapshot> jobs, List<byte[]> payloads,
      Jobs writer) throws IOException {
    return encode(format, gen -> {
      if (format == Format.JSON) {
        gen.setRootValueSeparator(null);
      }
      for (int i = 0; i < jobs.size(); i++) {
        writer.write(gen, jobs.get(i), payloads.get(i));
        if (format == Format.JSON) {
          gen.writeRaw("\n");
        }
      }
    });
  }

  @Test
  void aGeneratorThatFormatsItsOutputGetsTheGenericWriters() throws IOException {
    SplittableRandom random = new SplittableRandom(7);
    byte[] payload = "{\"a\":1}".getBytes();
    for (int i = 0; i < 200; i++) {
      JobSnapshot job = job(random);
      String laidOut = encode(Format.JSON, gen -> {
        gen.useDefaultPrettyPrinter();
        new PlainJobWriter().writeJob(gen, job, payload);
      });
      String generic = encode(Format.JSON, gen -> {
        gen.useDefaultPrettyPrinter();
        JobWriter.writeJob(gen, job, payload);
      });
      assertThat(laidOut).isEqualTo(generic);
      // And a generator writing chars, as the events feed's does.
      StringWriter text = new StringWriter();
      try (JsonGenerator gen = Format.JSON.mapper().getFactory().createGenerator(text)) {
        new PlainJobWriter().writeEnqueued(gen, job, true, false);
      }
      assertThat(text.toString()).startsWith("{\"id\":\"" + job.id() + "\"");
    }
  }
}
