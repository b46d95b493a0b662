package io.sluice.api.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the bulk acknowledgement workers send most, a JSON {@code {"ids":[...]}} with at least one
 * id, ids of printable ASCII without escapes and no other field, in one pass over its bytes.
 * Anything else makes it answer null, and the caller reads the body as a document tree, which
 * names every problem; on the bodies this reads, the tree gives the same ids.
 */
public final class PlainAckReader extends PlainScanner {
  private static final byte[] IDS = ascii("ids");
  private final List<String> ids = new ArrayList<>();

  private PlainAckReader(byte[] body) {
    super(body);
  }

  /** The ids of a plain bulk acknowledgement, in order, or null. */
  public static List<String> ids(Format format, byte[] body) {
    if (format != Format.JSON) {
      return null;
    }
    PlainAckReader reader = new PlainAckReader(body);
    return reader.scanned(reader::read) ? reader.ids : null;
  }

  private void read() {
    soleArrayField(IDS, () -> {
      int start = printableString();
      ids.add(new String(body, start, at - 1 - start, StandardCharsets.ISO_8859_1));
    });
  }
}
