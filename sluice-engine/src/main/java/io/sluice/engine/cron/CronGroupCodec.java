package io.sluice.engine.cron;

import io.sluice.engine.job.Binding;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored form of a cron group: everything needed to resume its schedule after a restart.
 *
 * <p>Layout (big-endian, {@link DataOutputStream}): a version byte; the group's pause state
 * (paused flag, paused_at, resumed_at) and zone; an entry count; per entry its name, expression
 * text, zone, pause state, next and last enqueue times, and template. Strings are a length and
 * UTF-8 bytes (names have no length limit); an optional value is a presence flag, then the value.
 * Times use {@link CronEntry#NONE} for "unset".
 */
public final class CronGroupCodec {
  /** Version 2 added a binding's partition (X3); version 1 records are still read. */
  private static final byte VERSION = 2;
  private static final byte VERSION_UNPARTITIONED = 1;

  private CronGroupCodec() {}

  public static byte[] encode(CronGroup group) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      writePause(out, group.pause());
      writeZone(out, group.zone());
      out.writeInt(group.entries().size());
      for (CronEntry entry : group.entries()) {
        writeString(out, entry.name());
        writeString(out, entry.expression().toString());
        writeZone(out, entry.zone());
        writePause(out, entry.pause());
        out.writeLong(entry.nextEnqueueAtMs());
        out.writeLong(entry.lastEnqueueAtMs());
        writeTemplate(out, entry.template());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Rebuilds a stored group as it was written, schedule included.
   *
   * @throws IllegalArgumentException if the record is not one this codec wrote, or names an
   *     expression or zone this runtime no longer accepts
   */
  public static CronGroup decode(String name, byte[] record, ZoneId serverZone) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(record))) {
      byte version = in.readByte();
      if (version != VERSION && version != VERSION_UNPARTITIONED) {
        throw new IllegalArgumentException("unknown cron group record version " + version);
      }
      CronGroup group = new CronGroup(name, serverZone, readPause(in), readZone(in));
      int count = in.readInt();
      for (int i = 0; i < count; i++) {
        String entryName = readString(in);
        CronExpression expression = CronExpression.parse(readString(in));
        ZoneId zone = readZone(in);
        PauseState pause = readPause(in);
        long nextMs = in.readLong();
        long lastMs = in.readLong();
        group.restore(new CronEntry(entryName, expression, zone, pause, nextMs, lastMs,
            readTemplate(in, version)));
      }
      return group;
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated cron group record", e);
    }
  }

  private static void writePause(DataOutputStream out, PauseState pause) throws IOException {
    out.writeBoolean(pause.paused());
    out.writeLong(pause.pausedAtMs());
    out.writeLong(pause.resumedAtMs());
  }

  private static PauseState readPause(DataInputStream in) throws IOException {
    return new PauseState(in.readBoolean(), in.readLong(), in.readLong());
  }

  private static void writeZone(DataOutputStream out, ZoneId zone) throws IOException {
    writeOptionalString(out, zone == null ? null : zone.getId());
  }

  private static ZoneId readZone(DataInputStream in) throws IOException {
    String id = readOptionalString(in);
    return id == null ? null : CronZones.parse(id);
  }

  private static void writeTemplate(DataOutputStream out, JobTemplate t) throws IOException {
    writeString(out, t.type());
    writeString(out, t.queue());
    out.writeInt(t.priority());
    out.writeBoolean(t.retryLimit() != null);
    if (t.retryLimit() != null) {
      out.writeInt(t.retryLimit());
    }
    out.writeBoolean(t.backoff() != null);
    if (t.backoff() != null) {
      out.writeLong(t.backoff().baseMs());
      out.writeFloat(t.backoff().exponent());
      out.writeLong(t.backoff().jitterMs());
    }
    out.writeBoolean(t.retention() != null);
    if (t.retention() != null) {
      writeOptionalLong(out, t.retention().completedMs());
      writeOptionalLong(out, t.retention().deadMs());
    }
    writeBytes(out, t.payload());
    out.writeInt(t.budgets().size());
    for (Binding binding : t.budgets()) {
      writeString(out, binding.key());
      out.writeLong(binding.cost());
      writeOptionalString(out, binding.partition());
    }
    out.writeBoolean(t.unique() != null);
    if (t.unique() != null) {
      writeString(out, t.unique().key());
      writeOptionalString(out, t.unique().scope() == null ? null : t.unique().scope().wireName());
    }
    out.writeBoolean(t.batch() != null);
    if (t.batch() != null) {
      writeString(out, t.batch().key());
      writeOptionalString(out, t.batch().when());
      writeOptionalString(out, t.batch().fold());
    }
  }

  private static JobTemplate readTemplate(DataInputStream in, byte version)
      throws IOException {
    String type = readString(in);
    String queue = readString(in);
    int priority = in.readInt();
    Integer retryLimit = in.readBoolean() ? in.readInt() : null;
    BackoffPolicy backoff = in.readBoolean()
        ? new BackoffPolicy(in.readLong(), in.readFloat(), in.readLong())
        : null;
    RetentionPolicy retention = in.readBoolean()
        ? new RetentionPolicy(readOptionalLong(in), readOptionalLong(in))
        : null;
    byte[] payload = readBytes(in);
    int bindingCount = in.readInt();
    List<Binding> budgets = new ArrayList<>(bindingCount);
    for (int i = 0; i < bindingCount; i++) {
      String key = readString(in);
      long cost = in.readLong();
      String partition = version == VERSION ? readOptionalString(in) : null;
      budgets.add(new Binding(key, partition, cost));
    }
    UniqueKey unique = null;
    if (in.readBoolean()) {
      String key = readString(in);
      String scope = readOptionalString(in);
      unique = new UniqueKey(key, scope == null ? null : UniqueKey.Scope.fromWireName(scope));
    }
    BatchConfig batch = in.readBoolean()
        ? new BatchConfig(readString(in), readOptionalString(in), readOptionalString(in))
        : null;
    return new JobTemplate(type, queue, priority, retryLimit, backoff, retention, payload,
        List.copyOf(budgets), unique, batch);
  }

  private static void writeOptionalLong(DataOutputStream out, Long value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      out.writeLong(value);
    }
  }

  private static Long readOptionalLong(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }

  private static void writeOptionalString(DataOutputStream out, String value)
      throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      writeString(out, value);
    }
  }

  private static String readOptionalString(DataInputStream in) throws IOException {
    return in.readBoolean() ? readString(in) : null;
  }

  private static void writeString(DataOutputStream out, String value) throws IOException {
    writeBytes(out, value.getBytes(StandardCharsets.UTF_8));
  }

  private static String readString(DataInputStream in) throws IOException {
    return new String(readBytes(in), StandardCharsets.UTF_8);
  }

  private static void writeBytes(DataOutputStream out, byte[] value) throws IOException {
    out.writeInt(value.length);
    out.write(value);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    return in.readNBytes(checkedLength(in.readInt(), in));
  }

  /** A corrupt length must not allocate gigabytes before the read fails. */
  private static int checkedLength(int length, DataInputStream in) throws IOException {
    if (length < 0 || length > in.available()) {
      throw new IOException("length " + length + " beyond the record");
    }
    return length;
  }
}
