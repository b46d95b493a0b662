package io.sluice.engine.cron;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Binding;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class CronGroupCodecTest {
  static final ZoneId SERVER = ZoneOffset.UTC;
  static final long T0 = Instant.parse("2024-03-01T10:00:00Z").toEpochMilli();

  static NewJob job(String type) {
    return new NewJob(null, type, "q", 7, null, null, null, null,
        "{\"a\":[1,2.5,\"é\"]}".getBytes(StandardCharsets.UTF_8), List.of());
  }

  static NewJob everyOption() {
    return new NewJob(null, "full", "queue ü", 65535, null, 3,
        new BackoffPolicy(100, 1.5f, 200), new RetentionPolicy(null, 5000L),
        "null".getBytes(StandardCharsets.UTF_8), List.of(),
        new UniqueKey("uk", UniqueKey.Scope.ACTIVE), null);
  }

  static NewJob batched() {
    return new NewJob(null, "b", "q", 0, null, null, null, new RetentionPolicy(1L, null),
        "{}".getBytes(StandardCharsets.UTF_8), List.of(), null,
        new BatchConfig("bk", ".when", null));
  }

  @Test
  void roundTripsEveryField() {
    CronGroup group = CronGroup.create("g", false, ZoneId.of("Europe/Rome"), SERVER, T0);
    GroupSpec spec = new GroupSpec(null, ZoneId.of("Europe/Rome"), List.of(
        new EntrySpec("plain", CronExpression.parse("*/5 * * * *"), null, null, job("plain")),
        new EntrySpec("full", CronExpression.parse("0 9 * * MON-FRI"), ZoneId.of("+05:30"),
            true, everyOption()),
        new EntrySpec("never", CronExpression.parse("0 0 30 2 *"), ZoneId.of("UTC"), false,
            batched())));
    group.replace(spec, List.of(
        JobTemplate.of(job("plain"), List.of()),
        JobTemplate.of(everyOption(), List.of(new Binding("api", 2), new Binding("db", 1),
            new Binding("per-account", "acct_42", 1))),
        JobTemplate.of(batched(), List.of())), T0);
    group.fireDue(T0 + 300_000, (template, atMs) -> true);
    group.entry("full").setPaused(false, T0 + 400_000);
    group.patch(new GroupPatch(true, false, null), T0 + 500_000);

    CronGroup decoded = CronGroupCodec.decode("g", CronGroupCodec.encode(group), SERVER);

    assertThat(decoded.view()).usingRecursiveComparison()
        .withEqualsForType(Arrays::equals, byte[].class)
        .isEqualTo(group.view());
    assertThat(decoded.entry("plain").lastEnqueueAtMs()).isEqualTo(T0 + 300_000);
    assertThat(decoded.entry("full").pause().resumedAtMs()).isEqualTo(T0 + 400_000);
    assertThat(decoded.entry("never").nextEnqueueAtMs()).isEqualTo(CronEntry.NONE);
    assertThat(decoded.pause().pausedAtMs()).isEqualTo(T0 + 500_000);
  }

  @Test
  void refusesAnUnknownVersionOrATruncatedRecord() {
    CronGroup group = CronGroup.create("g", false, null, SERVER, T0);
    byte[] record = CronGroupCodec.encode(group);
    record[0] = 9;

    assertThatThrownBy(() -> CronGroupCodec.decode("g", record, SERVER))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CronGroupCodec.decode("g", new byte[] {1, 0}, SERVER))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
