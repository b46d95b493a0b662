package io.sluice.engine;

import io.sluice.engine.job.JobId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The ids a bulk acknowledgement names, in request order: each parsed, and as the request wrote
 * it for the answer that lists those not in flight.
 *
 * <p>A well-formed id is kept parsed only: its 25-character form is the text it was read from
 * (the form is canonical, and a text that is not canonical is no id), so the text is rendered
 * again only for the rare answer that needs it. Text that is no id is kept as it came.
 */
public final class AckedIds {
  private final JobId[] ids;
  private final String[] malformed;

  /**
   * @param ids the parsed ids, null where the text is no id
   * @param malformed the texts at the positions where {@code ids} is null, null elsewhere; or
   *     null when every text is an id. The caller hands both arrays over
   */
  public AckedIds(JobId[] ids, String[] malformed) {
    if (malformed != null && ids.length != malformed.length) {
      throw new IllegalArgumentException(ids.length + " ids and " + malformed.length + " texts");
    }
    int texts = 0;
    for (int i = 0; i < ids.length; i++) {
      boolean text = malformed != null && malformed[i] != null;
      if ((ids[i] == null) != text) {
        throw new IllegalArgumentException("position " + i + " needs an id or a text, not both");
      }
      texts += text ? 1 : 0;
    }
    this.ids = ids;
    // No text at all is kept as no array, so that equal ids make equal objects.
    this.malformed = texts == 0 ? null : malformed;
  }

  /** The ids of texts as a request wrote them. */
  public static AckedIds of(List<String> texts) {
    JobId[] ids = new JobId[texts.size()];
    String[] malformed = null;
    for (int i = 0; i < ids.length; i++) {
      String text = texts.get(i);
      ids[i] = JobId.parseOrNull(text);
      if (ids[i] == null) {
        malformed = malformed == null ? new String[ids.length] : malformed;
        malformed[i] = text;
      }
    }
    return new AckedIds(ids, malformed);
  }

  public int size() {
    return ids.length;
  }

  /** The id at {@code i}, or null when the request's text there is no id. */
  public JobId id(int i) {
    return ids[i];
  }

  /** The text of the id at {@code i}, as the request wrote it. */
  public String text(int i) {
    return ids[i] != null ? ids[i].toString() : malformed[i];
  }

  /** Every text, in request order. */
  public List<String> texts() {
    List<String> texts = new ArrayList<>(ids.length);
    for (int i = 0; i < ids.length; i++) {
      texts.add(text(i));
    }
    return texts;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AckedIds other && Arrays.equals(ids, other.ids)
        && Arrays.equals(malformed, other.malformed);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(ids) + Arrays.hashCode(malformed);
  }

  @Override
  public String toString() {
    return texts().toString();
  }
}
