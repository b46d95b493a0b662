package io.sluice.api.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Framings of the take stream (API.md §3.3) with their heartbeat frames, and for the JSON
 * framings what goes before and after each job's JSON (MessagePack frames a job by its length).
 */
public enum StreamFormat {
  NDJSON("application/x-ndjson", "\n", "", "\n"),
  MSGPACK("application/vnd.zizq.msgpack-stream", "\0\0\0\0", "", ""),
  SSE("text/event-stream", ": heartbeat\n\n", "data: ", "\n\n");

  private final String mediaType;
  private final byte[] heartbeat;
  private final byte[] jobStart;
  private final byte[] jobEnd;

  StreamFormat(String mediaType, String heartbeat, String jobStart, String jobEnd) {
    this.mediaType = mediaType;
    this.heartbeat = ascii(heartbeat);
    this.jobStart = ascii(jobStart);
    this.jobEnd = ascii(jobEnd);
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  public String mediaType() {
    return mediaType;
  }

  public byte[] heartbeat() {
    return heartbeat.clone();
  }

  /** Writes what comes before a job's JSON in this framing. */
  public void writeJobStart(OutputStream out) throws IOException {
    out.write(jobStart);
  }

  /** Writes what comes after a job's JSON in this framing. */
  public void writeJobEnd(OutputStream out) throws IOException {
    out.write(jobEnd);
  }
}
