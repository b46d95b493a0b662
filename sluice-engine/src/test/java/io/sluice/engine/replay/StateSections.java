package io.sluice.engine.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An engine state description ({@code Engine.describe}) cut into its parts, so that a test can
 * say which parts a change touched: {@code jobs}, {@code queues}, {@code ready},
 * {@code scheduled}, {@code retained}, {@code wakes}, {@code budgets} (policies and buckets),
 * {@code waiting} (the budgets' waiting queues), {@code claims}, {@code open-batches},
 * {@code crons} and {@code streams} (what each open stream holds).
 */
final class StateSections {
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
}
