package io.sluice.client;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The blocks of a PEM file ({@code -----BEGIN label-----}, base64, {@code -----END label-----}),
 * as OpenSSL and {@code sluice tls init} write them. Text between blocks is skipped, since tools
 * put comments there (OpenSSL's "Bag Attributes", a certificate's text form); inside a block a
 * line with a colon is an RFC 1421 header, which only legacy encrypted keys carry. Problems throw
 * {@link IllegalArgumentException} naming the file.
 */
final class Pem {
  /** One block; {@code encrypted} when a {@code Proc-Type: 4,ENCRYPTED} header says so. */
  record Block(String label, boolean encrypted, byte[] der) {}

  private static final String BEGIN = "-----BEGIN ";
  private static final String END = "-----END ";
  private static final String DASHES = "-----";

  private Pem() {}

  static List<Block> read(Path path) {
    String text;
    try {
      text = Files.readString(path, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read " + path + ": " + reason(e), e);
    }
    List<Block> blocks = new ArrayList<>();
    String label = null;
    StringBuilder base64 = new StringBuilder();
    boolean encrypted = false;
    for (String raw : text.split("\\R")) {
      String line = raw.strip();
      if (label == null) {
        if (line.startsWith(BEGIN) && line.endsWith(DASHES)) {
          label = line.substring(BEGIN.length(), line.length() - DASHES.length());
          base64.setLength(0);
          encrypted = false;
        }
      } else if (line.startsWith(END)) {
        if (!line.equals(END + label + DASHES)) {
          throw new IllegalArgumentException(path + ": the " + label + " block ends with " + line);
        }
        blocks.add(new Block(label, encrypted, decode(path, label, base64)));
        label = null;
      } else if (line.indexOf(':') >= 0) {
        encrypted |= line.startsWith("Proc-Type:") && line.contains("ENCRYPTED");
      } else {
        base64.append(line);
      }
    }
    if (label != null) {
      throw new IllegalArgumentException(path + ": the " + label + " block has no END line");
    }
    return blocks;
  }

  private static byte[] decode(Path path, String label, CharSequence base64) {
    try {
      return Base64.getDecoder().decode(base64.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": the " + label + " block is not valid base64",
          e);
    }
  }

  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
