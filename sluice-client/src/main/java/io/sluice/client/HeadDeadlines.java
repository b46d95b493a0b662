package io.sluice.client;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Closes a socket whose awaited response head is overdue, so the head can be read without a
 * socket timeout. A read with {@code SO_TIMEOUT} set turns the JDK's socket non-blocking for
 * good: every later read that finds nothing then costs a failed read, a poll and the read again,
 * where a blocking socket reads once. A take stream's connection reads for as long as it lives.
 *
 * <p>One timer thread per class loader, shared by every client, ended after 30 s with nothing to
 * time.
 */
final class HeadDeadlines {
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private HeadDeadlines() {
  }

  /** Closes {@code socket} after {@code timeoutMillis} unless the deadline is met first. */
  static Deadline start(Socket socket, long timeoutMillis) {
    return new Deadline(TIMER.schedule(() -> closeQuietly(socket), timeoutMillis,
        TimeUnit.MILLISECONDS));
  }

  /** A running deadline. */
  static final class Deadline {
    private final ScheduledFuture<?> closing;

    private Deadline(ScheduledFuture<?> closing) {
      this.closing = closing;
    }

    /** Stops the deadline; false when it had already passed and the socket is closed. */
    boolean met() {
      return closing.cancel(false);
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing is all that was wanted
    }
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, task -> {
      // Made by whichever thread opens a stream: it must not keep that thread's locals or class
      // loader (an application redeployed in a container) alive.
      Thread thread = new Thread(null, task, "sluice-client-head-deadlines", 0, false);
      thread.setContextClassLoader(null);
      thread.setDaemon(true);
      return thread;
    });
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(30, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    return timer;
  }
}
