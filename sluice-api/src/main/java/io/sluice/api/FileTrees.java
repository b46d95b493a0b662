package io.sluice.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Deletes a directory with everything in it (backup scratch, restore staging, warm-up data). */
public final class FileTrees {
  private FileTrees() {}

  /** Deletes {@code dir} and its contents, deepest first; the first failure is thrown. */
  public static void delete(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      List<Path> paths = walk.sorted(Comparator.reverseOrder()).toList();
      for (Path path : paths) {
        Files.delete(path);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
