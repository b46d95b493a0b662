package io.sluice.engine.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An engine state description ({@code Engine.describe}) cut into its parts, so that a test can
 * say which parts a change touched: {@code jobs}, {@code queues}, {@code ready},
 * {@code scheduled}, {@code retained}, {@code wakes}, {@code budgets} (policies and buckets),
 * {@code waiting} (the budgets' waiting queues), {@code claims}, {@code open-batches},
 * {@code crons} and {@code streams} (what each open stream holds).
 */
final class StateSections {
  private static final Pattern READY_AT = Pattern.compile(" status=READY, readyAtMs=(\\d+),");
  private static final Pattern UNIQUE_KEY = Pattern.compile(" unique=UniqueKey\\[key=([^,]+),");

  private StateSections() {}

  static Map<String, List<String>> of(String description) {
    Map<String, List<String>> sections = new TreeMap<>();
    String section = null;
    String budget = null;
    for (String line : description.lines().toList()) {
      if (line.startsWith("  waiting ")) {
        sections.computeIfAbsent("waiting", s -> new ArrayList<>()).add(budget + line);
        continue;
      }
      if (!line.startsWith(" ")) {
        String head = line.split(" ", 2)[0];
        section = switch (head) {
          case "budget" -> "budgets";
          case "cron" -> "crons";
          case "stream" -> "streams";
          default -> head;
        };
        budget = head.equals("budget")
            ? line.substring(line.indexOf("key=") + 4, line.indexOf(',')) + ":" : null;
      }
      sections.computeIfAbsent(section, s -> new ArrayList<>()).add(line);
    }
    return sections;
  }

  /**
   * Whether a job is ready though its {@code ready_at} is after {@code nowMs}: a requeued job
   * whose ready_at was put off while it was in flight. A state rebuilt from the store has it
   * scheduled instead (see {@code RequeuedJobWithALaterReadyAtTest}).
   */
  static boolean hasReadyJobDueAfter(Map<String, List<String>> sections, long nowMs) {
    return sections.get("jobs").stream().map(READY_AT::matcher).anyMatch(
        job -> job.find() && Long.parseLong(job.group(1)) > nowMs);
  }

  /**
   * Whether a job that recovery would give its free unique key lacks it: a ready job, or one in
   * flight whose scope keeps the key while in flight (see {@code ReadyJobWithoutItsClaimTest}).
   */
  static boolean hasJobWithoutItsFreeKey(Map<String, List<String>> sections) {
    List<String> claimed = entries(sections.get("claims").get(0)).stream()
        .map(entry -> entry.substring(0, entry.indexOf('='))).toList();
    return sections.get("jobs").stream()
        .filter(job -> job.contains(" status=READY,") || (job.contains(" status=IN_FLIGHT,")
            && !job.contains(", scope=QUEUED]")))
        .map(UNIQUE_KEY::matcher).anyMatch(job -> job.find() && !claimed.contains(job.group(1)));
  }

  /** The entries of a line that ends in a map, {@code name {key=value, ...}}. */
  private static List<String> entries(String line) {
    String entries = line.substring(line.indexOf('{') + 1, line.lastIndexOf('}'));
    return entries.isEmpty() ? List.of() : List.of(entries.split(", "));
  }

  /**
   * The {@code open-batches} part with only the batches whose job is ready: a state rebuilt
   * from the store keeps no other (see {@code ScheduledOpenBatchTest}).
   */
  static List<String> openBatchesOfReadyJobs(Map<String, List<String>> sections) {
    List<String> kept = new ArrayList<>();
    for (String entry : entries(sections.get("open-batches").get(0))) {
      String id = entry.substring(entry.indexOf('=') + 1);
      boolean ready = sections.get("jobs").stream()
          .anyMatch(job -> job.contains("[id=" + id + ",") && job.contains(" status=READY,"));
      if (ready) {
        kept.add(entry);
      }
    }
    return List.of("open-batches {" + String.join(", ", kept) + "}");
  }
}
