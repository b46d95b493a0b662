package io.sluice.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Memory figures of a process from Linux's {@code /proc/<pid>/status}: resident set size now
 * ({@code VmRSS}) and its peak ({@code VmHWM}). Empty where /proc is unavailable (not Linux, or
 * the process is gone): memory is reported when it can be, never required.
 */
final class ProcStatus {
  private ProcStatus() {}

  /** Resident set size and its high-water mark in KiB; absent fields are -1. */
  record Memory(long rssKiB, long peakRssKiB) {
    static final Memory UNKNOWN = new Memory(-1, -1);

    boolean known() {
      return rssKiB >= 0;
    }

    /** e.g. "412 MiB (peak 530 MiB)", or "n/a". */
    String describe() {
      if (!known()) {
        return "n/a";
      }
      return peakRssKiB >= 0
          ? String.format("%,d MiB (peak %,d MiB)", rssKiB / 1024, peakRssKiB / 1024)
          : String.format("%,d MiB", rssKiB / 1024);
    }

    /** MiB with one decimal for RESULT lines, or null when unknown (rendered as JSON null). */
    Double rssMiB() {
      return known() ? ThroughputResult.round(rssKiB / 1024.0, 1) : null;
    }

    Double peakRssMiB() {
      return peakRssKiB >= 0 ? ThroughputResult.round(peakRssKiB / 1024.0, 1) : null;
    }
  }

  static Memory read(long pid) {
    try {
      String text = Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII);
      return new Memory(fieldKiB(text, "VmRSS").orElse(-1), fieldKiB(text, "VmHWM").orElse(-1));
    } catch (IOException | RuntimeException e) {
      return Memory.UNKNOWN;
    }
  }

  /** The value of a "{@code Name:   1234 kB}" line, in KiB. */
  static OptionalLong fieldKiB(String statusText, String name) {
    for (String line : statusText.split("\n")) {
      if (!line.startsWith(name + ":")) {
        continue;
      }
      String[] parts = line.substring(name.length() + 1).trim().split("\\s+");
      if (parts.length == 0 || parts[0].isEmpty()) {
        return OptionalLong.empty();
      }
      try {
        long value = Long.parseLong(parts[0]);
        if (parts.length > 1 && parts[1].equalsIgnoreCase("mB")) {
          value *= 1024;
        }
        return OptionalLong.of(value);
      } catch (NumberFormatException e) {
        return OptionalLong.empty();
      }
    }
    return OptionalLong.empty();
  }
}
