package io.sluice.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

class LogEntriesTest {
  @Test
  void aCommitKeepsItsTermAndBatchBytes() {
    byte[] batch = {0, 1, 2, (byte) 0xff};
    ByteString entry = LogEntries.commit(7_000_000_000L, batch);
    assertThat(LogEntries.kind(entry)).isEqualTo(LogEntries.COMMIT);
    assertThat(LogEntries.term(entry)).isEqualTo(7_000_000_000L);
    assertThat(LogEntries.body(entry)).containsExactly(batch);
  }

  @Test
  void anAnnouncementCarriesTheLeadersUrls() {
    LeaderUrls urls = new LeaderUrls("n2", "https://10.0.0.2:7890", "");
    ByteString entry = LogEntries.announce(3, urls);
    assertThat(LogEntries.kind(entry)).isEqualTo(LogEntries.ANNOUNCE);
    assertThat(LogEntries.term(entry)).isEqualTo(3);
    assertThat(LeaderUrls.decode(LogEntries.body(entry))).isEqualTo(urls);
  }

  @Test
  void aTruncatedEntryIsRefused() {
    assertThatThrownBy(() -> LogEntries.term(ByteString.copyFrom(new byte[] {1, 0, 0})))
        .hasMessageContaining("too short");
  }
}
