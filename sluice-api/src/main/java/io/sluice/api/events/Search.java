package io.sluice.api.events;

import io.sluice.engine.job.JobSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a client searches for (CLI.md §10.4): terms for the job type and terms for the queue.
 * Terms of one field are ORed, the two fields ANDed, and a term matches any name that contains
 * it, ignoring case. A field without terms places no condition.
 */
public record Search(List<String> types, List<String> queues) {
  public static final Search NONE = new Search(List.of(), List.of());
  private static final Pattern SEPARATORS = Pattern.compile("[,\\s]+");

  public Search {
    types = lowered(types);
    queues = lowered(queues);
  }

  /** The terms of a typed field: comma- or space-separated, empty ones dropped. */
  public static List<String> terms(String text) {
    List<String> terms = new ArrayList<>();
    for (String term : SEPARATORS.split(text == null ? "" : text.strip())) {
      if (!term.isEmpty()) {
        terms.add(term);
      }
    }
    return List.copyOf(terms);
  }

  public boolean isEmpty() {
    return types.isEmpty() && queues.isEmpty();
  }

  public boolean matches(JobSnapshot job) {
    return !isEmpty() && matchesQueue(job.queue()) && matchesType(job.type());
  }

  public boolean matchesQueue(String queue) {
    return anyIn(queues, queue);
  }

  public boolean matchesType(String type) {
    return anyIn(types, type);
  }

  /**
   * The queues among {@code known} that the queue terms select, so a walk can use the stored
   * queue index; null when there are no queue terms (every queue).
   */
  public Set<String> queuesAmong(Iterable<String> known) {
    if (queues.isEmpty()) {
      return null;
    }
    List<String> selected = new ArrayList<>();
    for (String queue : known) {
      if (matchesQueue(queue)) {
        selected.add(queue);
      }
    }
    return Set.copyOf(selected);
  }

  private static boolean anyIn(List<String> terms, String name) {
    if (terms.isEmpty()) {
      return true;
    }
    String lower = name.toLowerCase(Locale.ROOT);
    for (String term : terms) {
      if (lower.contains(term)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> lowered(List<String> terms) {
    List<String> lower = new ArrayList<>();
    for (String term : terms == null ? List.<String>of() : terms) {
      if (!term.isBlank()) {
        lower.add(term.strip().toLowerCase(Locale.ROOT));
      }
    }
    return List.copyOf(lower);
  }
}
