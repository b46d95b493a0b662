package io.sluice.cluster;

import java.nio.ByteBuffer;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The state machine's log entries: a kind byte, the term the writing engine started in, then
 * the body — a commit's serialized write batch, or a leader's {@link LeaderUrls}.
 *
 * <p>The term lets the leader refuse an entry from an engine of an older term of its own
 * (docs/cluster.md, "One engine per term").
 */
final class LogEntries {
  static final byte COMMIT = 1;
  static final byte ANNOUNCE = 2;
  private static final int HEADER = 9;

  private LogEntries() {}

  static ByteString commit(long term, byte[] batch) {
    return entry(COMMIT, term, batch);
  }

  static ByteString announce(long term, LeaderUrls urls) {
    return entry(ANNOUNCE, term, urls.encode());
  }

  private static ByteString entry(byte kind, long term, byte[] body) {
    ByteBuffer bytes = ByteBuffer.allocate(HEADER + body.length);
    bytes.put(kind).putLong(term).put(body);
    return UnsafeByteOperations.unsafeWrap(bytes.array());
  }

  static byte kind(ByteString entry) {
    requireHeader(entry);
    return entry.byteAt(0);
  }

  static long term(ByteString entry) {
    requireHeader(entry);
    return entry.substring(1, HEADER).asReadOnlyByteBuffer().getLong();
  }

  static byte[] body(ByteString entry) {
    requireHeader(entry);
    return entry.substring(HEADER).toByteArray();
  }

  private static void requireHeader(ByteString entry) {
    if (entry.size() < HEADER) {
      throw new IllegalArgumentException("log entry of " + entry.size() + " bytes is too short");
    }
  }
}
