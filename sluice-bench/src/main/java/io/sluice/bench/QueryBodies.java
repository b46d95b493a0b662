package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import java.util.List;

/**
 * Bulk bodies for the query workload's stored jobs: {@code stored} jobs on queue
 * {@value #STORED_QUEUE}, types {@code t0..t3} round-robin, payload
 * {@code {"seq":i,"kind":"k<i%10>","pad":"..."}}; and {@code rare} jobs on queue
 * {@value #RARE_QUEUE} (type {@value #RARE_TYPE}, kind {@value #RARE_TYPE}) spread evenly among
 * them, so that the rare jobs sit all through the id order instead of in one clump.
 *
 * <p>Positions 0..total-1 are enqueue order (and so id order); the stored jobs keep their own
 * sequence 0..stored-1 in that order, which makes the expected answers of every query a simple
 * function of {@code stored} and {@code rare}. Bodies are built when asked for: a million jobs
 * are not held in memory, and building is not being measured.
 */
final class QueryBodies {

  static final String STORED_QUEUE = "stored";
  static final String RARE_QUEUE = "rare";
  static final String RARE_TYPE = "rare";
  static final int TYPES = 4;
  static final int KINDS = 10;

  private final int stored;
  private final int payloadBytes;
  /** Sorted, distinct positions of the rare jobs. */
  private final int[] rarePositions;

  QueryBodies(int stored, int rare, int payloadBytes) {
    if ((long) stored + rare > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many jobs");
    }
    this.stored = stored;
    this.payloadBytes = payloadBytes;
    this.rarePositions = rarePositions(stored + rare, rare);
  }

  int total() {
    return stored + rarePositions.length;
  }

  /** Rare job k at position floor((k + 1/2) * total / rare): evenly spaced, distinct, in range. */
  static int[] rarePositions(int total, int rare) {
    int[] positions = new int[rare];
    for (int k = 0; k < rare; k++) {
      positions[k] = (int) (((2L * k + 1) * total) / (2L * rare));
    }
    return positions;
  }

  boolean isRare(int position) {
    return Arrays.binarySearch(rarePositions, position) >= 0;
  }

  /** Rare jobs before {@code position}; also the rare sequence number of a rare position. */
  int rareBefore(int position) {
    int i = Arrays.binarySearch(rarePositions, position);
    return i >= 0 ? i : -i - 1;
  }

  List<Buffer> lazyBulk(int batchSize) {
    return LazyBatches.of(total(), batchSize, this::body);
  }

  /** One {@code POST /jobs/bulk} body for positions [first, end). */
  Buffer body(int first, int end) {
    StringBuilder sb = new StringBuilder((end - first) * (payloadBytes + 48) + 16);
    sb.append("{\"jobs\":[");
    int rareSeq = rareBefore(first);
    int storedSeq = first - rareSeq;
    for (int p = first; p < end; p++) {
      if (p > first) {
        sb.append(',');
      }
      if (rareSeq < rarePositions.length && rarePositions[rareSeq] == p) {
        appendJob(sb, RARE_QUEUE, RARE_TYPE, rareSeq++, RARE_TYPE);
      } else {
        int seq = storedSeq++;
        appendJob(sb, STORED_QUEUE, "t" + (seq % TYPES), seq, "k" + (seq % KINDS));
      }
    }
    sb.append("]}");
    return Buffer.buffer(sb.toString());
  }

  private void appendJob(StringBuilder sb, String queue, String type, int seq, String kind) {
    sb.append("{\"type\":\"").append(type).append("\",\"queue\":\"").append(queue).append("\",\"payload\":");
    int start = sb.length();
    sb.append("{\"seq\":").append(seq).append(",\"kind\":\"").append(kind).append("\",\"pad\":\"");
    LazyBatches.pad(sb, start, payloadBytes);
    sb.append("\"}}");
  }

  /** Stored jobs of type {@code t<type>}. */
  static long typeCount(int stored, int type) {
    return countModulo(stored, TYPES, type);
  }

  /** Stored jobs whose payload kind is {@code k<kind>}. */
  static long kindCount(int stored, int kind) {
    return countModulo(stored, KINDS, kind);
  }

  /** How many i in [0, n) have i % m == r. */
  static long countModulo(int n, int m, int r) {
    return n / m + (n % m > r ? 1 : 0);
  }
}
