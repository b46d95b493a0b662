package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.engine.SluiceException;
import java.io.IOException;

/**
 * The {@code order} and {@code limit} parameters shared by paginated endpoints, and the
 * {@code pages} links of their answers (API.md §7.3).
 */
final class Pagination {
  static final int DEFAULT_LIMIT = 50;

  private Pagination() {}

  /**
   * Writes {@code "pages": {self, next, prev}} for a page read after cursor {@code from} (null
   * when none): {@code next} continues after the page's last item while there are more, and
   * {@code prev} goes back from its first item in the other order once the request had a cursor.
   * Links are {@code path} (ending in {@code ?}), the cursor, the order, then {@code tail}
   * ({@code &limit=…} and any filters); cursors are given as they appear in a link.
   */
  static void writePages(JsonGenerator gen, String path, String from, boolean descending,
      String tail, String firstCursor, String lastCursor, boolean more) throws IOException {
    String order = descending ? "desc" : "asc";
    writePages(gen, path + (from != null ? "from=" + from + "&" : "") + "order=" + order + tail,
        more ? path + "from=" + lastCursor + "&order=" + order + tail : null,
        from != null && firstCursor != null
            ? path + "from=" + firstCursor + "&order=" + (descending ? "asc" : "desc") + tail
            : null);
  }

  /** Writes {@code "pages": {self, next, prev}}, null links as JSON nulls. */
  static void writePages(JsonGenerator gen, String self, String next, String prev)
      throws IOException {
    gen.writeObjectFieldStart("pages");
    gen.writeStringField("self", self);
    writeLink(gen, "next", next);
    writeLink(gen, "prev", prev);
    gen.writeEndObject();
  }

  private static void writeLink(JsonGenerator gen, String name, String link) throws IOException {
    if (link == null) {
      gen.writeNullField(name);
    } else {
      gen.writeStringField(name, link);
    }
  }

  static boolean descending(String value) {
    if (value == null || value.isEmpty() || value.equals("asc")) {
      return false;
    }
    if (value.equals("desc")) {
      return true;
    }
    throw new SluiceException.InvalidRequest(
        "invalid query parameters: order must be \"asc\" or \"desc\"");
  }

  static int limit(String value) {
    if (value == null || value.isEmpty()) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(value);
      if (limit >= 1 && limit <= 2000) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // Same answer as an out-of-range limit.
    }
    throw new SluiceException.InvalidRequest("limit must be between 1 and 2000");
  }
}
