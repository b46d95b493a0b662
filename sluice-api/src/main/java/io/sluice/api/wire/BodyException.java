package io.sluice.api.wire;

import io.sluice.engine.SluiceException;

/** A request body that cannot be decoded into the expected shape (400, format-prefixed). */
public final class BodyException extends SluiceException {
  public BodyException(Format format, String detail) {
    super(format.decodeErrorPrefix() + detail);
  }
}
