package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

class BatchBuilderTest {
  static {
    RocksNativeLibrary.load();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The records of a built batch, in batch order, as "family:op:key". */
  private static List<String> records(BatchBuilder builder) throws RocksDBException {
    List<String> seen = new ArrayList<>();
    try (WriteBatch batch = builder.build();
        WriteBatch.Handler handler = new WriteBatch.Handler() {
          @Override
          public void put(int family, byte[] key, byte[] value) {
            seen.add(family + ":put:" + new String(key, StandardCharsets.UTF_8));
          }

          @Override
          public void put(byte[] key, byte[] value) {
            seen.add("0:put:" + new String(key, StandardCharsets.UTF_8));
          }

          @Override
          public void delete(int family, byte[] key) {
            seen.add(family + ":delete:" + new String(key, StandardCharsets.UTF_8));
          }

          @Override
          public void delete(byte[] key) {
            seen.add("0:delete:" + new String(key, StandardCharsets.UTF_8));
          }

          @Override public void merge(int family, byte[] key, byte[] value) { }
          @Override public void merge(byte[] key, byte[] value) { }
          @Override public void singleDelete(int family, byte[] key) { }
          @Override public void singleDelete(byte[] key) { }
          @Override public void deleteRange(int family, byte[] begin, byte[] end) { }
          @Override public void deleteRange(byte[] begin, byte[] end) { }
          @Override public void logData(byte[] blob) { }
          @Override public void putBlobIndex(int family, byte[] key, byte[] value) { }
          @Override public void markBeginPrepare() { }
          @Override public void markEndPrepare(byte[] xid) { }
          @Override public void markNoop(boolean emptyBatch) { }
          @Override public void markRollback(byte[] xid) { }
          @Override public void markCommit(byte[] xid) { }
          @Override public void markCommitWithTimestamp(byte[] xid, byte[] ts) { }
        }) {
      assertThat(batch.count()).isEqualTo(builder.count());
      batch.iterate(handler);
    }
    return seen;
  }

  @Test
  void recordsComeOutGroupedByFamilyAndPrefixInCallOrderWithinEach() throws Exception {
    BatchBuilder builder = new BatchBuilder();
    byte[] queue = bytes("q/");
    byte[] type = bytes("t/");
    for (int job = 1; job <= 3; job++) {
      builder.put(2, bytes("job" + job), bytes("record"));
      builder.put(5, queue, bytes("q/job" + job), new byte[0]);
      builder.put(5, type, bytes("t/job" + job), new byte[0]);
      builder.put(3, bytes("job" + job), bytes("payload"));
    }
    assertThat(records(builder)).containsExactly(
        "2:put:job1", "2:put:job2", "2:put:job3",
        "5:put:q/job1", "5:put:q/job2", "5:put:q/job3",
        "5:put:t/job1", "5:put:t/job2", "5:put:t/job3",
        "3:put:job1", "3:put:job2", "3:put:job3");
  }

  @Test
  void aPrefixEqualInContentIsTheSameGroup() throws Exception {
    BatchBuilder builder = new BatchBuilder();
    builder.put(5, bytes("q/"), bytes("q/a"), new byte[0]);
    builder.put(1, bytes("x"), bytes("v"));
    builder.delete(5, bytes("q/"), bytes("q/a"));
    builder.put(5, bytes("q/"), bytes("q/a"), new byte[0]);
    assertThat(records(builder)).containsExactly(
        "5:put:q/a", "5:delete:q/a", "5:put:q/a", "1:put:x");
  }

  @Test
  void groupsBeyondTheLanesShareOneWrittenLastInCallOrder() throws Exception {
    BatchBuilder builder = new BatchBuilder();
    List<String> expectedLast = new ArrayList<>();
    for (int group = 0; group < 40; group++) {
      byte[] prefix = bytes("g" + group + "/");
      builder.put(5, prefix, bytes("g" + group + "/k"), new byte[0]);
      builder.delete(5, prefix, bytes("g" + group + "/k"));
      if (group >= 15) {
        expectedLast.add("5:put:g" + group + "/k");
        expectedLast.add("5:delete:g" + group + "/k");
      }
    }
    List<String> records = records(builder);
    assertThat(records).hasSize(80);
    assertThat(records.subList(0, 4))
        .containsExactly("5:put:g0/k", "5:delete:g0/k", "5:put:g1/k", "5:delete:g1/k");
    assertThat(records.subList(30, 80)).isEqualTo(expectedLast);
  }

  /** Some records of every kind: plain and prefixed groups, more groups than lanes. */
  private static void fill(BatchBuilder builder, int seed, int valueBytes) {
    for (int i = 0; i < 30 + seed; i++) {
      builder.put(2, bytes("job" + seed + "/" + i), new byte[valueBytes + i]);
      byte[] prefix = bytes("g" + (i % (5 + seed)) + "/");
      builder.put(5, prefix, bytes("g/" + i), new byte[0]);
      builder.delete(3, bytes("old" + i));
    }
  }

  @Test
  void aResetBuilderBuildsWhatAFreshOneBuilds() {
    BatchBuilder reused = new BatchBuilder();
    // Earlier batches of other shapes, one with lanes grown past what a reset keeps.
    fill(reused, 20, BatchBuilder.MAX_KEPT_LANE_BYTES / 20);
    reused.serialized();
    fill(reused.reset(), 3, 10);
    reused.serialized();
    for (int seed = 0; seed < 4; seed++) {
      BatchBuilder fresh = new BatchBuilder();
      fill(fresh, seed, 7);
      fill(reused.reset(), seed, 7);
      assertThat(reused.count()).isEqualTo(fresh.count());
      assertThat(reused.serialized()).as("seed %d", seed).isEqualTo(fresh.serialized());
    }
  }

  @Test
  void aValueFromTheBuildersWriterIsStoredAsItsBytes() {
    BatchBuilder fromWriter = new BatchBuilder();
    BatchBuilder fromArray = new BatchBuilder();
    for (int i = 0; i < 50; i++) {
      RecordWriter value = fromWriter.valueWriter().writeString("value " + i).writeLong(i);
      fromWriter.put(2, bytes("k" + i), value);
      fromArray.put(2, bytes("k" + i),
          new RecordWriter().writeString("value " + i).writeLong(i).toByteArray());
    }
    assertThat(fromWriter.serialized()).isEqualTo(fromArray.serialized());
  }
}
