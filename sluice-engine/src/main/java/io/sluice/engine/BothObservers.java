package io.sluice.engine;

/** Tells two observers of everything, the first before the second ({@link EngineObserver#both}). */
final class BothObservers implements EngineObserver {
  private final EngineObserver first;
  private final EngineObserver second;

  BothObservers(EngineObserver first, EngineObserver second) {
    this.first = first;
    this.second = second;
  }

  @Override
  public void enqueued(String queue) {
    first.enqueued(queue);
    second.enqueued(queue);
  }

  @Override
  public void dispatched(String queue, long waitedMs) {
    first.dispatched(queue, waitedMs);
    second.dispatched(queue, waitedMs);
  }

  @Override
  public void completed(String queue, long ranMs) {
    first.completed(queue, ranMs);
    second.completed(queue, ranMs);
  }

  @Override
  public void failed(String queue, long ranMs, boolean dead) {
    first.failed(queue, ranMs, dead);
    second.failed(queue, ranMs, dead);
  }

  @Override
  public void committed(boolean synced, long nanos) {
    first.committed(synced, nanos);
    second.committed(synced, nanos);
  }

  @Override
  public void published() {
    first.published();
    second.published();
  }
}
