package io.sluice.client;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads for job handlers: virtual threads when the JVM has them (Java 21+), platform threads
 * otherwise. The library is compiled for Java 17, so virtual threads are reached by reflection.
 */
final class HandlerThreads {
  private HandlerThreads() {}

  /** A pool of {@code threads} threads, which bounds how many handlers run at once. */
  static HandlerPool pool(int threads, String namePrefix) {
    ThreadFactory factory = virtualAvailable()
        ? virtualFactory(namePrefix)
        : platformFactory(namePrefix);
    return new HandlerPool(threads, factory);
  }

  static boolean virtualAvailable() {
    return Runtime.version().feature() >= 21;
  }

  private static ThreadFactory virtualFactory(String namePrefix) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      // Look methods up on the public interfaces: the builder's own class is not accessible.
      Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
      builder = ofVirtual.getMethod("name", String.class, long.class)
          .invoke(builder, namePrefix, 0L);
      return (ThreadFactory) Class.forName("java.lang.Thread$Builder")
          .getMethod("factory").invoke(builder);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return platformFactory(namePrefix);
    }
  }

  private static ThreadFactory platformFactory(String namePrefix) {
    AtomicLong next = new AtomicLong();
    return task -> {
      Thread thread = new Thread(task, namePrefix + next.getAndIncrement());
      thread.setDaemon(true);
      return thread;
    };
  }
}
