package io.sluice.jmh;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.wire.Format;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * The jobs of the peer harness's throughput workload: a bulk enqueue of {@link #JOBS} jobs with
 * a 100-byte JSON payload each, and the same jobs as the engine hands them to the wire.
 */
public final class HotPathJobs {
  public static final int JOBS = 1000;
  public static final int ACK_IDS = 16;
  private static final long NOW_MS = 1_764_000_000_000L;

  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(7));
  private final byte[] bulkBody;
  private final List<JobSnapshot> jobs = new ArrayList<>();

  public HotPathJobs() {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < JOBS; i++) {
      String payload = payload(i);
      body.append(i == 0 ? "" : ",").append("{\"type\":\"bench\",\"queue\":\"bench\",\"payload\":")
          .append(payload).append('}');
      jobs.add(new JobSnapshot(ids.next(NOW_MS), "bench", "bench", 32768, JobStatus.READY,
          NOW_MS, 0, null, null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE,
          payload.getBytes(StandardCharsets.UTF_8)));
    }
    bulkBody = body.append("]}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A 100-byte JSON object, as the harness sends. */
  static String payload(int i) {
    String head = "{\"n\":" + i + ",\"pad\":\"";
    return head + "x".repeat(100 - head.length() - 2) + "\"}";
  }

  /**
   * The same jobs under new ids, later than any before; {@link #jobs()} then answers these.
   */
  public List<JobSnapshot> fresh() {
    for (int i = 0; i < jobs.size(); i++) {
      JobSnapshot job = jobs.get(i);
      jobs.set(i, new JobSnapshot(ids.next(NOW_MS), job.type(), job.queue(), job.priority(),
          job.status(), job.readyAtMs(), 0, null, null, null, Job.NONE, Job.NONE, Job.NONE,
          Job.NONE, job.payload()));
    }
    return jobs;
  }

  public byte[] bulkBody() {
    return bulkBody;
  }

  /**
   * Bulk acknowledgements of the jobs, {@link #ACK_IDS} ids a body (the last one shorter), as the
   * drain's workers send them with a prefetch of 16.
   */
  public List<byte[]> ackBodies() {
    List<byte[]> bodies = new ArrayList<>();
    for (int from = 0; from < jobs.size(); from += ACK_IDS) {
      StringBuilder body = new StringBuilder("{\"ids\":[");
      for (int i = from; i < Math.min(jobs.size(), from + ACK_IDS); i++) {
        body.append(i == from ? "\"" : ",\"").append(jobs.get(i).id()).append('"');
      }
      bodies.add(body.append("]}").toString().getBytes(StandardCharsets.US_ASCII));
    }
    return bodies;
  }

  public List<JobSnapshot> jobs() {
    return jobs;
  }

  public Supplier<JobId> ids() {
    return () -> ids.next(NOW_MS);
  }

  /** Writes with a JSON generator into a reused buffer, as the server writes a response. */
  public static int writeJson(ByteArrayOutputStream out, GeneratorWork work) {
    out.reset();
    try (JsonGenerator gen = Format.JSON.mapper().getFactory().createGenerator(out)) {
      gen.setRootValueSeparator(null);
      work.write(gen);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.size();
  }

  /** What a benchmark writes through a generator. */
  @FunctionalInterface
  public interface GeneratorWork {
    void write(JsonGenerator gen) throws IOException;
  }
}
