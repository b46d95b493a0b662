package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.util.function.Supplier;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * Writes the PEM files of one {@code sluice tls} run into its output directory and reports each on
 * the command's output ({@code wrote: <path>} or {@code skip: <path> (already exists)}). A file
 * that exists is kept unless {@code overwrite} is set. Private keys are PKCS#8 and readable by
 * their owner only where the file system has POSIX permissions.
 */
final class PemOutput {
  private static final String OWNER_ONLY = "rw-------";
  private static final String WORLD_READABLE = "rw-r--r--";

  private final Path directory;
  private final boolean overwrite;
  private final PrintWriter out;

  PemOutput(Path directory, boolean overwrite, PrintWriter out) {
    this.directory = directory;
    this.overwrite = overwrite;
    this.out = out;
  }

  Path directory() {
    return directory;
  }

  /**
   * Writes a certificate and its key as a pair. Unless overwriting, if either file exists both are
   * left as they are, so a certificate never ends up beside a key it does not belong to; {@code
   * issue} runs only when the pair is written. Returns whether it was.
   */
  boolean writePair(String certificateName, String keyName, Supplier<CertifiedKey> issue) {
    Path certificate = directory.resolve(certificateName);
    Path key = directory.resolve(keyName);
    boolean certificateExists = exists(certificate);
    boolean keyExists = exists(key);
    if (!overwrite && (certificateExists || keyExists)) {
      reportSkip(certificate, certificateExists, key);
      reportSkip(key, keyExists, certificate);
      return false;
    }
    CertifiedKey issued = issue.get();
    createDirectory();
    try {
      write(certificate, "CERTIFICATE", issued.certificate().getEncoded(), false);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encode the certificate for " + certificate, e);
    }
    write(key, "PRIVATE KEY", issued.privateKey().getEncoded(), true);
    return true;
  }

  private void reportSkip(Path file, boolean exists, Path partner) {
    out.println(exists
        ? "skip: " + file + " (already exists)"
        : "skip: " + file + " (" + partner + " already exists)");
  }

  private static boolean exists(Path file) {
    // A symbolic link counts as there even when dangling: it is never replaced by accident.
    return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
  }

  private void createDirectory() {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw new OperatorException("cannot create " + directory + ": " + IoReasons.of(e), e);
    }
  }

  /**
   * Writes through a temporary file in the same directory, created owner-only, then renamed into
   * place: a key is never readable by others even for a moment, and a replaced file is swapped
   * whole.
   */
  private void write(Path target, String pemType, byte[] der, boolean secret) {
    boolean posix = directory.getFileSystem().supportedFileAttributeViews().contains("posix");
    Path temporary = null;
    try {
      temporary = posix
          ? Files.createTempFile(directory, ".sluice-tls-", ".tmp", permissions(OWNER_ONLY))
          : Files.createTempFile(directory, ".sluice-tls-", ".tmp");
      try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.US_ASCII);
          PemWriter pem = new PemWriter(writer)) {
        pem.writeObject(new PemObject(pemType, der));
      }
      if (posix && !secret) {
        Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString(WORLD_READABLE));
      }
      if (overwrite) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.move(temporary, target);
      }
    } catch (IOException e) {
      throw new OperatorException("cannot write " + target + ": " + IoReasons.of(e), e);
    } finally {
      deleteQuietly(temporary);
    }
    out.println("wrote: " + target);
  }

  private static FileAttribute<?> permissions(String symbolic) {
    return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(symbolic));
  }

  private static void deleteQuietly(Path temporary) {
    if (temporary == null) {
      return;
    }
    try {
      Files.deleteIfExists(temporary);
    } catch (IOException e) {
      // Only left behind after an earlier failure, which is what gets reported.
    }
  }
}
