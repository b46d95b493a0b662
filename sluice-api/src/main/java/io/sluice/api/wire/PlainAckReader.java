package io.sluice.api.wire;

import io.sluice.engine.AckedIds;
import io.sluice.engine.job.JobId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the bulk acknowledgement workers send most, a JSON {@code {"ids":[...]}} with at least one
 * id, ids of printable ASCII without escapes and no other field, in one pass over its bytes.
 * Anything else makes it answer null, and the caller reads the body as a document tree, which
 * names every problem; on the bodies this reads, the tree gives the same ids.
 *
 * <p>An id is parsed from the body's bytes where it stands; only text that is no id becomes a
 * string.
 */
public final class PlainAckReader extends PlainScanner {
  private static final byte[] IDS = ascii("ids");
  private JobId[] ids = new JobId[16];
  /** Null until an id's text is no id. */
  private String[] malformed;
  private int count;

  private PlainAckReader(byte[] body) {
    super(body);
  }

  /** The ids of a plain bulk acknowledgement, in order, or null. */
  public static AckedIds ids(Format format, byte[] body) {
    if (format != Format.JSON) {
      return null;
    }
    PlainAckReader reader = new PlainAckReader(body);
    if (!reader.scanned(reader::read)) {
      return null;
    }
    int count = reader.count;
    return new AckedIds(count == reader.ids.length ? reader.ids : Arrays.copyOf(reader.ids, count),
        reader.malformed == null ? null : Arrays.copyOf(reader.malformed, count));
  }

  private void read() {
    soleArrayField(IDS, () -> {
      int start = printableString();
      int length = at - 1 - start;
      JobId id = length == JobId.TEXT_LENGTH ? JobId.parseOrNull(body, start) : null;
      if (count == ids.length) {
        ids = Arrays.copyOf(ids, 2 * count);
        malformed = malformed == null ? null : Arrays.copyOf(malformed, 2 * count);
      }
      ids[count] = id;
      if (id == null) {
        if (malformed == null) {
          malformed = new String[ids.length];
        }
        malformed[count] = new String(body, start, length, StandardCharsets.ISO_8859_1);
      }
      count++;
    });
  }
}
