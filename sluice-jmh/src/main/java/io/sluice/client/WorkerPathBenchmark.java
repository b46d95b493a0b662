package io.sluice.client;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.client.model.Job;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * The Java worker's own work on each job it receives, past the socket: the job's line of a take
 * stream read into a {@link Job} (the take thread's share), and its payload bound to the
 * handler's type and the handler called (a handler thread's share). The jobs are the bench's:
 * a 100-byte payload of three fields read into a record. Scores are per job.
 *
 * <p>In the client's package, to reach the reader and the registry the worker itself uses.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WorkerPathBenchmark {
  static final int JOBS = 1_000;
  static final String TYPE = "bench";

  /** The bench's payload. */
  public record Payload(int seq, String nonce, String pad) {}

  private final WireCodec codec = new WireCodec();
  private final ObjectReader jobReader = codec.mapper(WireFormat.JSON).readerFor(Job.class);
  private final byte[] stream = takeStream();
  private final List<Job> jobs;
  private final HandlerRegistry handlers = new HandlerRegistry(codec);
  private long seqSum;

  public WorkerPathBenchmark() {
    try {
      jobs = read(jobReader, stream);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    handlers.register(TYPE, Payload.class, (payload, job) -> seqSum += payload.seq());
  }

  /** Each line of a take stream read into a job, by one parser from start to end. */
  @Benchmark
  @OperationsPerInvocation(JOBS)
  public List<Job> readTakeStream() throws IOException {
    return read(jobReader, stream);
  }

  /** Each job's payload bound to the handler's record type, and the handler called. */
  @Benchmark
  @OperationsPerInvocation(JOBS)
  public long bindAndHandle() throws Exception {
    for (int i = 0; i < jobs.size(); i++) {
      handlers.handle(jobs.get(i));
    }
    return seqSum;
  }

  private static List<Job> read(ObjectReader reader, byte[] stream) throws IOException {
    List<Job> read = new ArrayList<>(JOBS);
    try (MappingIterator<Job> lines = reader.readValues(stream)) {
      while (lines.hasNextValue()) {
        read.add(lines.nextValue());
      }
    }
    return read;
  }

  /** NDJSON as the server lays a delivery out, with a heartbeat (a blank line) now and then. */
  private static byte[] takeStream() {
    StringBuilder sb = new StringBuilder(JOBS * 320);
    for (int seq = 0; seq < JOBS; seq++) {
      sb.append("{\"id\":\"03hcusk0ex8r9j5j").append(String.format("%05d", seq))
          .append("\",\"type\":\"").append(TYPE).append("\",\"queue\":\"bench\",\"priority\":32768")
          .append(",\"status\":\"in_flight\",\"payload\":{\"seq\":").append(seq)
          .append(",\"nonce\":\"n7f3a9c1e\",\"pad\":\"").append("x".repeat(56)).append("\"}")
          .append(",\"ready_at\":1796405094409,\"attempts\":0,\"dequeued_at\":1796405094411}\n");
      if (seq % 100 == 99) {
        sb.append('\n');
      }
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }
}
