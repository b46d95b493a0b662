package io.sluice.jmh;

import io.sluice.api.wire.Bodies;
import io.sluice.api.wire.BulkAcks;
import io.sluice.api.wire.EnqueueParser;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.PlainJobWriter;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The wire side of one job: its part of a bulk enqueue body read, of the bulk answer written, its
 * line of a take stream written, and its id read from a bulk acknowledgement. Scores are per job.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WireBenchmark {
  private final HotPathJobs jobs = new HotPathJobs();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream(256 * 1024);
  private final byte[] idText = new byte[JobId.TEXT_LENGTH];
  private final List<byte[]> ackBodies = jobs.ackBodies();
  private final PlainJobWriter linesWithoutGenerator = new PlainJobWriter();

  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public List<NewJob> readBulkEnqueue() {
    return new EnqueueParser(Format.JSON)
        .readBulk(Bodies.checked(Format.JSON, jobs.bulkBody()), jobs.ids());
  }

  /** Every job's id read from the bulk acknowledgements that name them. */
  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public int readBulkAcks() {
    int read = 0;
    for (byte[] body : ackBodies) {
      read += BulkAcks.read(Format.JSON, body).ids().size();
    }
    return read;
  }

  /** Each job's id in its 25 characters, as every answer and every delivery writes it. */
  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public byte[] renderIds() {
    byte[] text = idText;
    List<JobSnapshot> snapshots = jobs.jobs();
    for (int i = 0; i < snapshots.size(); i++) {
      snapshots.get(i).id().renderInto(text, 0);
    }
    return text;
  }

  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public int writeBulkAnswer() {
    return HotPathJobs.writeJson(out, gen -> {
      gen.writeStartObject();
      gen.writeArrayFieldStart("jobs");
      PlainJobWriter writer = new PlainJobWriter();
      for (JobSnapshot job : jobs.jobs()) {
        writer.writeEnqueued(gen, job, false, false);
      }
      gen.writeEndArray();
      gen.writeEndObject();
    });
  }

  /**
   * Each job's take-stream line laid out straight into the stream with no generator, as a take
   * stream writes a plain job (it makes a generator only for a job that is not plain). Measures
   * the layout alone, not a whole delivery: no chunk, no {@code TakeStream.encode}.
   */
  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public int writeLinesWithoutGenerator() {
    out.reset();
    try {
      for (JobSnapshot job : jobs.jobs()) {
        if (!linesWithoutGenerator.writeJob(out, job, job.payload())) {
          throw new IllegalStateException("the bench's jobs are plain");
        }
        out.write('\n');
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.size();
  }

  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public int writeTakeStreamLines() {
    return HotPathJobs.writeJson(out, gen -> {
      PlainJobWriter writer = new PlainJobWriter();
      for (JobSnapshot job : jobs.jobs()) {
        writer.writeJob(gen, job, job.payload());
        gen.writeRaw('\n');
      }
    });
  }
}
