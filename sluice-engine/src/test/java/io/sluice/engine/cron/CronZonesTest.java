package io.sluice.engine.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CronZonesTest {
  @Test
  void acceptsIanaRegionIds() {
    assertThat(CronZones.parse("Europe/Rome")).isEqualTo(ZoneId.of("Europe/Rome"));
    assertThat(CronZones.parse("America/Argentina/Buenos_Aires"))
        .isEqualTo(ZoneId.of("America/Argentina/Buenos_Aires"));
  }

  @Test
  void acceptsUtcAndFixedOffsets() {
    assertThat(CronZones.parse("UTC")).isEqualTo(ZoneId.of("UTC"));
    assertThat(CronZones.parse("Z")).isEqualTo(ZoneOffset.UTC);
    assertThat(CronZones.parse("+02:00")).isEqualTo(ZoneOffset.ofHours(2));
  }

  @ParameterizedTest
  @ValueSource(strings = {"Mars/Olympus", "", " ", "Europe/Rome ", "+25:00", "CEST", "Europe/"})
  void rejectsUnknownIdsNamingThem(String id) {
    assertThatThrownBy(() -> CronZones.parse(id))
        .isInstanceOf(InvalidTimezoneException.class)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("invalid timezone: \"" + id + "\"");
  }
}
