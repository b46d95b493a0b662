package io.sluice.cli;

import ch.qos.logback.core.rolling.LengthCounter;
import ch.qos.logback.core.rolling.LengthCounterBase;
import ch.qos.logback.core.rolling.TriggeringPolicyBase;
import io.sluice.cli.LogFileConfig.Rotation;
import java.io.File;
import java.time.InstantSource;

/**
 * Tells Logback's {@code RollingFileAppender} to rotate the active log file at the first line
 * after a {@link Rotation} boundary, or once the file has reached its size limit. The appender
 * asks before writing each line, under its triggering lock, so this class needs no locking of its
 * own; it counts the file's bytes through the {@link LengthCounter} the appender feeds (seeded
 * with the length of a file left by an earlier run), so no line costs a file-system call.
 */
final class RotationTrigger<E> extends TriggeringPolicyBase<E> {
  private final Rotation rotation;
  private final long maxBytes;
  private final InstantSource clock;
  private final File activeFile;
  private final LengthCounter length = new LengthCounterBase();
  /** Owned by the appender's triggering lock; set in {@link #start}. */
  private long nextRotationAtMs;

  RotationTrigger(Rotation rotation, long maxBytes, InstantSource clock, File activeFile) {
    this.rotation = rotation;
    this.maxBytes = maxBytes;
    this.clock = clock;
    this.activeFile = activeFile;
  }

  /**
   * A file left by an earlier run belongs to the period it was last written in: a server
   * restarted the next day rotates yesterday's file at its first line.
   */
  @Override
  public void start() {
    long writtenAtMs = activeFile.length() > 0 ? activeFile.lastModified() : clock.millis();
    nextRotationAtMs = rotation.nextBoundaryMs(writtenAtMs);
    super.start();
  }

  @Override
  public boolean isTriggeringEvent(File file, E event) {
    boolean rotate = length.getLength() >= maxBytes;
    long nowMs = clock.millis();
    if (nowMs >= nextRotationAtMs) {
      nextRotationAtMs = rotation.nextBoundaryMs(nowMs);
      // A period without a line leaves no empty file behind.
      rotate |= length.getLength() > 0;
    }
    if (rotate) {
      length.reset();
    }
    return rotate;
  }

  @Override
  public LengthCounter getLengthCounter() {
    return length;
  }
}
