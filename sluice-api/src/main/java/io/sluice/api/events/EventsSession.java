package io.sluice.api.events;

import io.sluice.api.http.HttpError;
import io.sluice.engine.Names;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.job.JobId;
import io.vertx.core.http.ServerWebSocket;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client of {@code GET /events}. Every tick (the client's refresh interval) it copies the
 * published counts, tells the client what changed and refreshes the subscribed tab; every two
 * seconds it sends a heartbeat. Store reads run on worker threads, one at a time: requests that
 * arrive meanwhile are folded into the next read, which always reads what the client last asked.
 *
 * <p>Owned by the connection's event loop: every method runs there.
 */
final class EventsSession {
  static final long HEARTBEAT_MS = 2000;
  /** A job window is read again after this long even when its tab's count did not change. */
  static final long STALE_WINDOW_MS = 2000;
  /**
   * Tick refreshes of a window wait at least this many times as long as its last read took, so
   * a window that is slow to read (see docs/events.md) costs a session at most a tenth of the
   * time; the client's own requests are never held back.
   */
  static final int REFRESH_GAP_PER_READ_TIME = 10;
  /** A search with type terms is recounted at most this often (it walks the tab's jobs). */
  static final long RECOUNT_MS = 10_000;
  private static final Logger LOG = LoggerFactory.getLogger(EventsSession.class);

  private final EventsFeed feed;
  private final ServerWebSocket socket;
  private boolean closed;
  private long tickTimer = -1;
  private long heartbeatTimer = -1;
  private long throughputTimer = -1;
  /** The newest throughput sample sent to this client. */
  private long throughputSentAtMs = Long.MIN_VALUE;
  private JobCounts counts = JobCounts.EMPTY;
  private int budgetCount;

  // What the client asked to see.
  private boolean subscribed;
  private Tab tab = Tab.IN_FLIGHT;
  private int limit = ClientMessages.DEFAULT_LIMIT;
  private long target;
  private Search search = Search.NONE;
  private boolean paused;
  private long refreshMs = ClientMessages.DEFAULT_REFRESH_MS;
  /** Bumped by every change of what to show, so that a read that started before is dropped. */
  private long generation;
  private JobWindow.Anchor anchor;
  private long lastWindowAtMs;
  private long lastReadMs;

  // The one read in progress, and what waits for it.
  private boolean reading;
  private boolean readAgain;
  private ClientMessage.Find pendingFind;
  /** The ref of the newest request that the next window answers. */
  private Long replyRef;

  private final MatchCount matchCount;

  EventsSession(EventsFeed feed, ServerWebSocket socket) {
    this.feed = feed;
    this.socket = socket;
    this.matchCount = new MatchCount(feed);
  }

  void start() {
    socket.textMessageHandler(this::received);
    socket.binaryMessageHandler(bytes -> send(ServerMessages.error(null, 400,
        "messages are JSON text frames")));
    socket.exceptionHandler(e -> LOG.debug("events connection failed: {}", e.toString()));
    socket.closeHandler(ignored -> close());
    counts = JobCounts.of(feed.queueCounts());
    budgetCount = feed.budgetStates().size();
    send(ServerMessages.status(feed.server(), feed.nowMs(), counts, budgetCount));
    tickTimer = feed.vertx().setPeriodic(refreshMs, id -> tick());
    heartbeatTimer = feed.vertx().setPeriodic(HEARTBEAT_MS,
        id -> send(ServerMessages.heartbeat(feed.server(), feed.nowMs())));
  }

  private void close() {
    closed = true;
    feed.vertx().cancelTimer(tickTimer);
    feed.vertx().cancelTimer(heartbeatTimer);
    feed.vertx().cancelTimer(throughputTimer);
  }

  // ---- the client's messages ---------------------------------------------------------------

  private void received(String text) {
    ClientMessage message;
    try {
      message = ClientMessages.parse(text);
    } catch (ClientMessages.Invalid e) {
      send(ServerMessages.error(e.ref(), 400, e.getMessage()));
      return;
    }
    if (message instanceof ClientMessage.Subscribe subscribe) {
      subscribe(subscribe);
    } else if (message instanceof ClientMessage.Scroll scroll) {
      target = scroll.offset();
      showAgain(scroll.ref());
    } else if (message instanceof ClientMessage.SetSearch change) {
      changeSearch(change.search());
      showAgain(change.ref());
    } else if (message instanceof ClientMessage.Find find) {
      find(find);
    } else if (message instanceof ClientMessage.Pause pause) {
      paused = pause.paused();
      if (!paused) {
        showAgain(pause.ref());
      }
    } else if (message instanceof ClientMessage.Delete delete) {
      delete(delete);
    } else if (message instanceof ClientMessage.WatchThroughput watch) {
      watchThroughput(watch.ref());
    }
  }

  private void subscribe(ClientMessage.Subscribe s) {
    if (s.tab() != tab) {
      anchor = null;
      matchCount.forget();
    }
    tab = s.tab();
    limit = s.limit();
    target = s.offset();
    changeSearch(s.search());
    if (s.refreshMs() != refreshMs) {
      refreshMs = s.refreshMs();
      feed.vertx().cancelTimer(tickTimer);
      tickTimer = feed.vertx().setPeriodic(refreshMs, id -> tick());
    }
    subscribed = true;
    showAgain(s.ref());
  }

  private void changeSearch(Search newSearch) {
    if (!newSearch.equals(search)) {
      search = newSearch;
      matchCount.forget();
    }
  }

  private void showAgain(Long ref) {
    generation++;
    if (!subscribed) {
      send(ServerMessages.error(ref, 400, "subscribe to a tab first"));
    } else if (tab == Tab.BUDGETS) {
      sendBudgets(ref);
    } else {
      matchCount.refresh(tab, search, counts, false);
      requestRead(ref);
    }
  }

  private void find(ClientMessage.Find f) {
    if (!subscribed || !tab.listsJobs()) {
      send(ServerMessages.error(f.ref(), 400, "find needs a job tab"));
      return;
    }
    if (search.isEmpty()) {
      send(ServerMessages.error(f.ref(), 400, "find needs a search"));
      return;
    }
    if (f.from() != null && JobId.parseOrNull(f.from()) == null) {
      send(ServerMessages.error(f.ref(), 400, "from is not a job id: " + f.from()));
      return;
    }
    pendingFind = f;
    generation++;
    requestRead(f.ref());
  }

  private void delete(ClientMessage.Delete d) {
    JobId id = JobId.parseOrNull(d.id());
    feed.engine().<Void>call((engine, nowMs) -> {
      engine.delete(id, nowMs);
      return null;
    }).onComplete(result -> {
      if (closed) {
        return;
      }
      if (result.succeeded()) {
        send(ServerMessages.deleted(d.ref(), d.id()));
        if (subscribed && tab.listsJobs()) {
          requestRead(null);
        }
      } else {
        HttpError error = HttpError.of(result.cause());
        send(ServerMessages.error(d.ref(), error.status(), error.message()));
      }
    });
  }

  private void watchThroughput(Long ref) {
    throughputSentAtMs = Long.MIN_VALUE;
    sendThroughput(ref);
    if (throughputTimer < 0) {
      throughputTimer = feed.vertx().setPeriodic(Throughput.INTERVAL_MS, id -> {
        if (!socket.writeQueueFull()) {
          sendThroughput(null); // a slow client skips seconds now and gets them in the next
        }
      });
    }
  }

  private void sendThroughput(Long ref) {
    Throughput throughput = feed.throughput();
    List<Throughput.Sample> samples = throughput.since(throughputSentAtMs);
    if (!samples.isEmpty()) {
      throughputSentAtMs = samples.get(samples.size() - 1).atMs();
    }
    send(ServerMessages.throughput(ref, throughput.workers(), samples));
  }

  // ---- ticks ---------------------------------------------------------------------------------

  private void tick() {
    long nowMs = feed.nowMs();
    JobCounts latest = JobCounts.of(feed.queueCounts());
    int latestBudgetCount = feed.budgetStates().size();
    boolean tabChanged = false;
    if (!latest.equals(counts) || latestBudgetCount != budgetCount) {
      send(ServerMessages.changed(latest.changedStatuses(counts), latest.changedQueues(counts),
          latestBudgetCount != budgetCount));
      tabChanged = tab.listsJobs() && latest.of(tab.status()) != counts.of(tab.status());
      counts = latest;
      budgetCount = latestBudgetCount;
      send(ServerMessages.status(feed.server(), nowMs, counts, budgetCount));
    }
    if (!subscribed || paused || socket.writeQueueFull()) {
      return; // a client that cannot keep up misses refreshes, never replies
    }
    if (tab == Tab.BUDGETS) {
      sendBudgets(null);
      return;
    }
    matchCount.refresh(tab, search, counts, tabChanged);
    long sinceLast = nowMs - lastWindowAtMs;
    if ((tabChanged || sinceLast >= STALE_WINDOW_MS)
        && sinceLast >= lastReadMs * REFRESH_GAP_PER_READ_TIME) {
      requestRead(null);
    }
  }

  private void sendBudgets(Long ref) {
    List<BudgetState> all = new ArrayList<>(feed.budgetStates().values());
    all.sort((a, b) -> Names.BYTE_ORDER.compare(a.view().key(), b.view().key()));
    int offset = (int) Math.max(0, Math.min(target, all.size() - limit));
    List<BudgetState> page = all.subList(offset, Math.min(all.size(), offset + limit));
    send(ServerMessages.budgets(ref, feed.nowMs(), offset, limit, all.size(), page));
  }

  // ---- window reads --------------------------------------------------------------------------

  private void requestRead(Long ref) {
    if (ref != null) {
      replyRef = ref;
    }
    if (reading) {
      readAgain = true;
    } else {
      startRead();
    }
  }

  /** What a read found: the window, and the match when it was asked to find one. */
  private record Read(JobWindow window, ClientMessage.Find find, WindowReads.Found found) {}

  private void startRead() {
    reading = true;
    readAgain = false;
    long readGeneration = generation;
    Long ref = replyRef;
    replyRef = null;
    ClientMessage.Find find = pendingFind;
    pendingFind = null;
    Tab readTab = tab;
    Search readSearch = search;
    int readLimit = limit;
    long readTarget = target;
    JobWindow.Anchor readAnchor = anchor;
    long total = counts.of(readTab.status());
    long nowMs = feed.nowMs();
    WindowReads windows = feed.windows();
    long startedNanos = System.nanoTime();
    feed.vertx().executeBlocking(() -> {
      long at = readTarget;
      JobWindow.Anchor from = readAnchor;
      WindowReads.Found found = null;
      if (find != null) {
        JobId fromId = find.from() == null ? null : JobId.parseOrNull(find.from());
        long fromOffset = fromId == null ? (find.forward() ? -1 : total) : find.fromOffset();
        found = windows.find(readTab, readSearch, fromId, fromOffset, find.forward(), nowMs);
        if (found != null) {
          at = found.offset();
          from = new JobWindow.Anchor(found.id(), found.offset());
        }
      }
      JobWindow window = windows.read(new WindowReads.Request(readTab, readSearch, readLimit, at,
          from, total, nowMs));
      return new Read(window, find, found);
    }, false).onComplete(result -> {
      reading = false;
      lastReadMs = (System.nanoTime() - startedNanos) / 1_000_000;
      if (closed) {
        return;
      }
      if (result.failed()) {
        LOG.warn("events: reading a {} window failed", readTab.wireName(), result.cause());
        send(ServerMessages.error(ref, 500, "reading the jobs failed"));
      } else if (readGeneration == generation) {
        deliver(result.result(), ref);
      } else if (replyRef == null) {
        replyRef = ref; // superseded: the next read answers this request too
      }
      if (readAgain || pendingFind != null) {
        startRead();
      }
    });
  }

  private void deliver(Read read, Long ref) {
    if (read.find() != null) {
      send(ServerMessages.found(ref, read.find().forward(), read.found()));
      if (read.found() == null) {
        return;
      }
      target = read.found().offset();
    }
    anchor = read.window().anchor();
    lastWindowAtMs = feed.nowMs();
    send(ServerMessages.window(ref, read.window(), limit, search,
        matchCount.matches(tab, search, counts), paused));
  }

  private void send(String message) {
    if (!closed && !socket.isClosed()) {
      socket.writeTextMessage(message);
    }
  }
}
