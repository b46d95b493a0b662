package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcStatusTest {

  private static final String STATUS = """
      Name:\tjava
      VmPeak:\t 8123456 kB
      VmHWM:\t  530000 kB
      VmRSS:\t  412345 kB
      Threads:\t42
      """;

  @Test
  void readsKibibyteFields() {
    assertThat(ProcStatus.fieldKiB(STATUS, "VmRSS")).hasValue(412_345);
    assertThat(ProcStatus.fieldKiB(STATUS, "VmHWM")).hasValue(530_000);
  }

  @Test
  void missingOrMalformedFieldsAreEmpty() {
    assertThat(ProcStatus.fieldKiB(STATUS, "VmSwap")).isEmpty();
    assertThat(ProcStatus.fieldKiB("VmRSS:\tlots kB\n", "VmRSS")).isEmpty();
    assertThat(ProcStatus.fieldKiB("VmRSS:\n", "VmRSS")).isEmpty();
    // a field whose name merely starts the same way is not the field
    assertThat(ProcStatus.fieldKiB("VmRSSX:\t1 kB\n", "VmRSS")).isEmpty();
  }

  @Test
  void memoryDescriptions() {
    ProcStatus.Memory m = new ProcStatus.Memory(412_345, 530_000);
    assertThat(m.describe()).isEqualTo("402 MiB (peak 517 MiB)");
    assertThat(m.rssMiB()).isEqualTo(402.7);
    assertThat(ProcStatus.Memory.UNKNOWN.describe()).isEqualTo("n/a");
    assertThat(ProcStatus.Memory.UNKNOWN.rssMiB()).isNull();
  }

  @Test
  void thisProcessHasAResidentSetOnLinux() {
    ProcStatus.Memory self = ProcStatus.read(ProcessHandle.current().pid());
    if (System.getProperty("os.name").toLowerCase().contains("linux")) {
      assertThat(self.rssKiB()).isPositive();
    }
    assertThat(ProcStatus.read(Long.MAX_VALUE).known()).isFalse();
  }
}
