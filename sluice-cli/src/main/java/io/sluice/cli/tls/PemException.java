package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;

/** A PEM file that cannot be used; the message names the file and what is wrong with it. */
public final class PemException extends OperatorException {
  PemException(String message) {
    super(message);
  }

  PemException(String message, Throwable cause) {
    super(message, cause);
  }
}
