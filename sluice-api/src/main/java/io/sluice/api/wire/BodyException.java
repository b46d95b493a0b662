package io.sluice.api.wire;

import io.sluice.engine.SluiceException;

/** A request body that cannot be decoded into the expected shape (400, format-prefixed). */
public final class BodyException extends SluiceException {
  public BodyException(Format format, String detail) {
    super(format.decodeErrorPrefix() + detail);
  }

  /** A message that already carries its prefix (e.g. a bulk element's {@code jobs[i]: }). */
  public BodyException(String message) {
    super(message);
  }

  /** A decoder's message without the source-location boilerplate Jackson adds. */
  public static BodyException from(Format format, com.fasterxml.jackson.core.JacksonException e) {
    String detail = String.valueOf(e.getOriginalMessage())
        .replaceAll("\\[Source: [^;]*; ", "[");
    return new BodyException(format, detail);
  }
}
