package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds enqueue request bodies ahead of time so building them is never part of a measurement.
 *
 * <p>Each payload carries the job's sequence number (to correlate deliveries with sends without a
 * lookup table of server ids) and the run's nonce (so jobs left behind by an earlier run on a
 * shared server are recognised as strays instead of being miscounted as ours). Padding brings the
 * payload to the requested size.
 */
final class JobBodies {

  private final String queue;
  private final String nonce;
  private final int payloadBytes;

  JobBodies(String queue, String nonce, int payloadBytes) {
    this.queue = queue;
    this.nonce = nonce;
    this.payloadBytes = payloadBytes;
  }

  /** Body for {@code POST /jobs}. */
  Buffer single(int seq) {
    StringBuilder sb = new StringBuilder(payloadBytes + 64);
    appendJob(sb, seq);
    return Buffer.buffer(sb.toString());
  }

  /** Bodies for {@code POST /jobs/bulk}, sequence numbers 0..jobs-1 in order, batchSize per body. */
  List<Buffer> bulk(int jobs, int batchSize) {
    List<Buffer> bodies = new ArrayList<>((jobs + batchSize - 1) / batchSize);
    StringBuilder sb = new StringBuilder(batchSize * (payloadBytes + 64) + 16);
    for (int first = 0; first < jobs; first += batchSize) {
      int end = Math.min(jobs, first + batchSize);
      sb.setLength(0);
      sb.append("{\"jobs\":[");
      for (int seq = first; seq < end; seq++) {
        if (seq > first) {
          sb.append(',');
        }
        appendJob(sb, seq);
      }
      sb.append("]}");
      bodies.add(Buffer.buffer(sb.toString()));
    }
    return bodies;
  }

  /** Number of jobs in bulk body {@code index}; the last batch may be short. */
  static int batchJobs(int jobs, int batchSize, int index) {
    return Math.min(batchSize, jobs - index * batchSize);
  }

  private void appendJob(StringBuilder sb, int seq) {
    sb.append("{\"type\":\"bench\",\"queue\":\"").append(queue).append("\",\"payload\":");
    appendPayload(sb, seq);
    sb.append('}');
  }

  void appendPayload(StringBuilder sb, int seq) {
    int start = sb.length();
    sb.append("{\"seq\":").append(seq).append(",\"nonce\":\"").append(nonce).append("\",\"pad\":\"");
    // 2 bytes for the closing quote and brace; pad may be empty if the caller asks for tiny payloads.
    int pad = payloadBytes - (sb.length() - start) - 2;
    for (int i = 0; i < pad; i++) {
      sb.append('x');
    }
    sb.append("\"}");
  }
}
