package io.sluice.client;

import io.sluice.client.model.Page;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;

/** Walks a listing item by item, fetching the page behind {@code pages.next} when needed. */
final class PageIterator<T> implements Iterator<T> {
  private final Function<String, Page<T>> fetch;
  private Page<T> page;
  private int index;

  PageIterator(Page<T> first, Function<String, Page<T>> fetch) {
    this.page = first;
    this.fetch = fetch;
  }

  @Override
  public boolean hasNext() {
    // A page may come back empty while a next link is still given; keep following it.
    while (index == page.items().size() && page.next() != null) {
      page = fetch.apply(page.next());
      index = 0;
    }
    return index < page.items().size();
  }

  @Override
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.items().get(index++);
  }
}
