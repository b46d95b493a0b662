package io.sluice.api;

import io.sluice.engine.SluiceException;

/** The {@code order} and {@code limit} parameters shared by paginated endpoints (API.md §7.3). */
final class Pagination {
  static final int DEFAULT_LIMIT = 50;

  private Pagination() {}

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
