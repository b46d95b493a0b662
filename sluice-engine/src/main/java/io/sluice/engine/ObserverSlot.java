package io.sluice.engine;

/**
 * The engine's observer, which the server sets after the engine is built (and a rebuild keeps):
 * every room is given this slot and reaches the current observer through it.
 */
final class ObserverSlot implements EngineObserver {
  private volatile EngineObserver target = EngineObserver.NONE;

  void set(EngineObserver observer) {
    target = observer;
  }

  @Override
  public void enqueued(String queue) {
    target.enqueued(queue);
  }

  @Override
  public void dispatched(String queue, long waitedMs) {
    target.dispatched(queue, waitedMs);
  }

  @Override
  public void completed(String queue, long ranMs) {
    target.completed(queue, ranMs);
  }

  @Override
  public void failed(String queue, long ranMs, boolean dead) {
    target.failed(queue, ranMs, dead);
  }

  @Override
  public void committed(boolean synced, long nanos) {
    target.committed(synced, nanos);
  }

  @Override
  public void published() {
    target.published();
  }
}
