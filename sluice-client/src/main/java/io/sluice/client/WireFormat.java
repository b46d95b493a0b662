package io.sluice.client;

/** The body format the client sends and asks for (API.md §3.1, §3.3). */
public enum WireFormat {
  JSON("application/json", "application/x-ndjson"),
  MSGPACK("application/msgpack", "application/vnd.zizq.msgpack-stream");

  private final String mediaType;
  private final String streamMediaType;

  WireFormat(String mediaType, String streamMediaType) {
    this.mediaType = mediaType;
    this.streamMediaType = streamMediaType;
  }

  public String mediaType() {
    return mediaType;
  }

  /** The {@code GET /jobs/take} framing that goes with this format. */
  public String streamMediaType() {
    return streamMediaType;
  }
}
