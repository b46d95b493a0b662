package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchRecordsTest {
  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> read(byte[] batch) {
    List<String> records = new ArrayList<>();
    BatchRecords.forEach(batch, (family, key, value) -> records.add(family + ":"
        + new String(key, StandardCharsets.UTF_8)
        + (value == null ? " deleted" : "=" + new String(value, StandardCharsets.UTF_8))));
    return records;
  }

  @Test
  void readsBackWhatTheBuilderWroteInItsLaneOrder() {
    BatchBuilder builder = new BatchBuilder();
    builder.put(1, bytes("job-1"), bytes("record"));
    builder.put(0, bytes("marker"), bytes("v"));
    builder.delete(1, bytes("job-2"));
    builder.put(200, bytes("k"), new byte[300]);

    List<String> records = read(builder.serialized());

    assertThat(records).hasSize(4).startsWith("1:job-1=record", "1:job-2 deleted",
        "0:marker=v");
    assertThat(records.get(3)).startsWith("200:k=");
  }

  @Test
  void readsNothingFromAnEmptyBatch() {
    assertThat(read(new byte[12])).isEmpty();
  }

  @Test
  void refusesATruncatedBatchOrAnUnknownRecordType() {
    BatchBuilder builder = new BatchBuilder();
    builder.put(1, bytes("job-1"), bytes("record"));
    byte[] whole = builder.serialized();

    assertThatThrownBy(() -> read(Arrays.copyOf(whole, whole.length - 2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("past its end");
    byte[] merge = whole.clone();
    merge[12] = 0x2;
    assertThatThrownBy(() -> read(merge))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("type 2");
    assertThatThrownBy(() -> read(new byte[3]))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
