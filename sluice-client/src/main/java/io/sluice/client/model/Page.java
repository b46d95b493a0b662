package io.sluice.client.model;

import java.util.List;

/**
 * One page of a listing. {@code next} and {@code prev} are server links (absolute paths), null
 * when there is nothing in that direction; pass them back to the client to fetch that page.
 */
public record Page<T>(List<T> items, String self, String next, String prev) {
  public boolean hasNext() {
    return next != null;
  }
}
