package io.sluice.api.wire;

import io.sluice.engine.SluiceException;
import java.util.List;

/**
 * Content negotiation by case-sensitive substring tests on the raw headers (API.md §3.1, §8.4);
 * quality parameters are deliberately not interpreted.
 */
public final class Negotiation {
  public static final List<String> BODY_TYPES = List.of("application/json", "application/msgpack");
  public static final List<String> STREAM_TYPES = List.of(
      "text/event-stream", "application/x-ndjson", "application/vnd.zizq.msgpack-stream");

  private Negotiation() {}

  /** The response format for an Accept header, or null when it accepts neither (406). */
  public static Format responseFormat(String accept) {
    if (accept == null) {
      return Format.JSON;
    }
    if (accept.contains("application/msgpack")) {
      return Format.MSGPACK;
    }
    if (accept.contains("application/json") || accept.contains("*/*")) {
      return Format.JSON;
    }
    return null;
  }

  /** The request body format for a Content-Type header, or null when unsupported (415). */
  public static Format requestFormat(String contentType) {
    if (contentType == null) {
      return Format.JSON;
    }
    if (contentType.contains("application/msgpack")) {
      return Format.MSGPACK;
    }
    if (contentType.contains("application/json")) {
      return Format.JSON;
    }
    return null;
  }

  /** The framing of a take stream for an Accept header, or null when none fits (406). */
  public static StreamFormat streamFormat(String accept) {
    if (accept == null) {
      return StreamFormat.NDJSON;
    }
    if (accept.contains("text/event-stream")) {
      return StreamFormat.SSE;
    }
    if (accept.contains("application/vnd.zizq.msgpack-stream")
        || accept.contains("application/msgpack")) {
      return StreamFormat.MSGPACK;
    }
    if (accept.contains("application/x-ndjson") || accept.contains("application/json")
        || accept.contains("*/*")) {
      return StreamFormat.NDJSON;
    }
    return null;
  }

  /** Thrown when no acceptable representation exists; carries the supported list. */
  public static final class NotAcceptable extends SluiceException {
    private final List<String> supported;

    public NotAcceptable(List<String> supported) {
      super("not acceptable");
      this.supported = supported;
    }

    public List<String> supported() {
      return supported;
    }
  }

  /** Thrown when the request body's media type is not supported. */
  public static final class UnsupportedMediaType extends SluiceException {
    public UnsupportedMediaType() {
      super("unsupported media type");
    }
  }
}
