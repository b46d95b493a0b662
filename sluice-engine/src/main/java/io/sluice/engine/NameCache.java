package io.sluice.engine;

import java.util.HashMap;
import java.util.Map;

/**
 * Shares one String instance per queue or type name, so a million jobs of one queue hold one
 * name instead of a million copies. Bounded, since names can come from application data.
 *
 * <p>Owned by the engine thread.
 */
final class NameCache {
  private static final int MAX_NAMES = 10_000;
  private final Map<String, String> names = new HashMap<>();

  String canonical(String name) {
    String shared = names.get(name);
    if (shared != null) {
      return shared;
    }
    if (names.size() < MAX_NAMES) {
      names.put(name, name);
    }
    return name;
  }
}
