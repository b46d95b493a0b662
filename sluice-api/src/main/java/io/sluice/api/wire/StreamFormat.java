package io.sluice.api.wire;

/** Framings of the take stream (API.md §3.3) with their heartbeat frames. */
public enum StreamFormat {
  NDJSON("application/x-ndjson", new byte[] {'\n'}),
  MSGPACK("application/vnd.zizq.msgpack-stream", new byte[] {0, 0, 0, 0}),
  SSE("text/event-stream", ": heartbeat\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

  private final String mediaType;
  private final byte[] heartbeat;

  StreamFormat(String mediaType, byte[] heartbeat) {
    this.mediaType = mediaType;
    this.heartbeat = heartbeat;
  }

  public String mediaType() {
    return mediaType;
  }

  public byte[] heartbeat() {
    return heartbeat.clone();
  }
}
