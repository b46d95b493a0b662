package io.sluice.cli.tls;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

/**
 * Short reasons for failed file operations, for messages that name the file themselves: the JDK's
 * own messages repeat the path or, for a missing file, hold nothing but the path.
 */
final class IoReasons {
  private IoReasons() {}

  static String of(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof FileSystemException fileSystem && fileSystem.getReason() != null) {
      return fileSystem.getReason();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
