package io.sluice.engine.store;

import io.sluice.engine.SluiceException;

/** A failure of the durable store, naming the operation that failed. */
public final class StorageException extends SluiceException {
  public StorageException(String operation, Throwable cause) {
    super("storage failure during " + operation + ": " + cause.getMessage(), cause);
  }
}
