package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How {@code sluice backup} prints the archive's size: binary units, one decimal. */
class BackupSizeTest {
  @Test
  void bytesBelowOneKibibyteArePrintedAsBytes() {
    assertThat(BackupCommand.humanSize(0)).isEqualTo("0 B");
    assertThat(BackupCommand.humanSize(1023)).isEqualTo("1023 B");
  }

  @Test
  void largerSizesTakeTheLargestUnitBelowThem() {
    assertThat(BackupCommand.humanSize(1024)).isEqualTo("1.0 KiB");
    assertThat(BackupCommand.humanSize(44_040_192)).isEqualTo("42.0 MiB");
    assertThat(BackupCommand.humanSize(3L << 30)).isEqualTo("3.0 GiB");
    assertThat(BackupCommand.humanSize(5L << 40)).isEqualTo("5.0 TiB");
    assertThat(BackupCommand.humanSize(2048L << 40)).isEqualTo("2048.0 TiB");
  }
}
