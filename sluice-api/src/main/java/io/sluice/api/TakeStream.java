package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.sluice.api.http.RawChunks;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.JobWriter;
import io.sluice.api.wire.PlainJobWriter;
import io.sluice.api.wire.StreamFormat;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.JobStore;
import io.vertx.core.Completable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One open {@code GET /jobs/take} response: frames the jobs the engine dispatches to it, sends
 * heartbeats when idle, and reports the stream's end so that its jobs are requeued. It is paced
 * by its writes: each delivery is reported written once its bytes are in the socket, and the
 * engine sends nothing more before that, so a worker that stops reading holds what was written
 * to it plus at most one delivery (API.md §8.4).
 *
 * <p>{@link #deliver} runs on the engine thread: it writes at once when that thread is this
 * stream's event loop (the engine hosted on the one loop), and otherwise hops to the loop; all
 * other methods run on that event loop.
 */
final class TakeStream implements JobSink {
  private static final Logger LOG = LoggerFactory.getLogger(TakeStream.class);
  /** About how many bytes of one delivery are encoded and written at a time. */
  static final int PIECE_BYTES = 1 << 20;

  private final Vertx vertx;
  private final Context context;
  private final HttpServerResponse response;
  private final StreamFormat format;
  private final EngineGateway engine;
  private final JobStore store;
  private final long heartbeatMs;
  private final String workerId;
  private volatile WorkerSession session;
  private volatile boolean closed;
  private long lastWriteMs;
  private long heartbeatTimer = -1;
  /** Where the stream's chunks go once its head is out, below Vert.x; null: through Vert.x. */
  private final RawChunks rawChunks;
  /**
   * Lays out the plain jobs of every delivery, reusing its buffer. Shared safely: {@link #encode}
   * runs only on this stream's loop and copies each layout into the chunk before it returns.
   */
  private final PlainJobWriter plainJobs = new PlainJobWriter();
  /**
   * Set once the head's write has completed. Vert.x's own {@code headWritten()} is true as soon
   * as the head is handed to its queue, where a raw chunk could still pass it.
   */
  private boolean headWritten;

  /** {@code rawChunks} may be null: every write then goes through Vert.x's response. */
  TakeStream(Vertx vertx, HttpServerResponse response, RawChunks rawChunks, StreamFormat format,
      EngineGateway engine, JobStore store, long heartbeatMs, String workerId) {
    this.vertx = vertx;
    this.rawChunks = rawChunks;
    this.context = vertx.getOrCreateContext();
    this.response = response;
    this.format = format;
    this.engine = engine;
    this.store = store;
    this.heartbeatMs = heartbeatMs;
    this.workerId = workerId;
  }

  void open(Set<String> queues, int prefetch, HttpVersion version) {
    response.setStatusCode(200).putHeader("Content-Type", format.mediaType());
    if (version != HttpVersion.HTTP_2) {
      response.setChunked(true);
    }
    response.closeHandler(v -> onClosed());
    response.exceptionHandler(e -> onClosed());
    response.writeHead().onSuccess(done -> headWritten = true);
    lastWriteMs = System.currentTimeMillis();
    armHeartbeat(heartbeatMs);
    engine.post((eng, nowMs) -> {
      WorkerSession opened = eng.openSession(queues, prefetch, this);
      session = opened;
      // The client may have gone while the command was queued.
      if (closed) {
        eng.closeSession(opened, nowMs);
      }
      return null;
    });
    LOG.debug("take stream opened by worker {} for queues {}", workerId, queues);
  }

  @Override
  public void deliver(List<JobSnapshot> jobs) {
    if (((ContextInternal) context).nettyEventLoop().inEventLoop()) {
      // The engine turns on this stream's event loop: write now, ahead of the turn's answers,
      // which reach their connections as tasks queued on the loop.
      writeFrom(jobs, 0);
    } else {
      context.runOnContext(v -> writeFrom(jobs, 0));
    }
  }

  @Override
  public boolean pacedByWrites() {
    return true;
  }

  /**
   * Writes the delivery from job {@code from} on, in pieces of about {@link #PIECE_BYTES}: the
   * next piece is encoded (its payloads read from the store if need be) only once the previous
   * one is in the socket, so a delivery of large jobs never sits whole in the server's memory.
   */
  private void writeFrom(List<JobSnapshot> jobs, int from) {
    if (closed) {
      return;
    }
    try {
      writePiece(jobs, from);
    } catch (IOException | RuntimeException e) {
      // The jobs are in flight on this stream and can no longer reach it: end the stream so
      // that they are requeued instead of waiting for the client to hang up. Caught here, a
      // failure never reaches the engine's dispatch, which may be the caller.
      LOG.error("cannot write jobs to worker {}; closing its stream", workerId, e);
      response.reset();
      onClosed();
    }
  }

  private void writePiece(List<JobSnapshot> jobs, int from) throws IOException {
    boolean raw = writesRaw();
    int expectedBytes = Math.min(PIECE_BYTES, (jobs.size() - from) * 320);
    // Below Vert.x the frames are encoded straight into the chunk the socket takes.
    // Vert.x does not release a buffer it did not make, so its path gets a plain heap one.
    ByteBuf frames = raw
        ? rawChunks.newChunk(expectedBytes)
        : Unpooled.wrappedBuffer(new byte[expectedBytes]).clear();
    int start = frames.writerIndex();
    int next;
    try {
      next = encode(jobs, from, frames, start);
    } catch (Throwable e) {
      frames.release();
      throw e;
    }
    if (frames.writerIndex() == start) {
      frames.release();
      reportWritten();
      return;
    }
    lastWriteMs = System.currentTimeMillis();
    // Reported once the frames are in the socket, not merely queued in the server: a worker
    // that stops reading then holds what the kernel took plus this one delivery. A failed write
    // means the stream is ending, and its close requeues the jobs.
    Future<Void> written =
        raw ? rawChunks.write(frames) : response.write(BufferInternal.buffer(frames));
    written.onComplete(new AfterPiece(jobs, next));
  }

  /**
   * Tells the engine a session's delivery is written. A class rather than a lambda, as it is made
   * for every delivery (see {@link AfterPiece}).
   */
  private static final class SessionWritten implements EngineLoop.Command<Void> {
    private final WorkerSession session;

    SessionWritten(WorkerSession session) {
      this.session = session;
    }

    @Override
    public Void apply(Engine engine, long nowMs) {
      engine.sessionWritten(session);
      return null;
    }
  }

  /**
   * Once a piece is in the socket, writes the next or reports the delivery written. A class rather
   * than a lambda, as it is made for every piece written: on C1 a capturing lambda is made through
   * method handles it does not inline.
   */
  private final class AfterPiece implements Completable<Void> {
    private final List<JobSnapshot> jobs;
    private final int next;

    AfterPiece(List<JobSnapshot> jobs, int next) {
      this.jobs = jobs;
      this.next = next;
    }

    @Override
    public void complete(Void result, Throwable failure) {
      if (failure != null) {
        return;
      }
      if (next == jobs.size()) {
        reportWritten();
      } else {
        writeFrom(jobs, next);
      }
    }
  }

  /**
   * Writes a heartbeat through Vert.x until the head is out, then as a raw chunk when the
   * connection allows.
   */
  private Future<Void> writeHeartbeat(Buffer frames) {
    return writesRaw() ? rawChunks.write(frames) : response.write(frames);
  }

  /** True once writes can go below Vert.x: a guarded HTTP/1.1 connection, the head out. */
  private boolean writesRaw() {
    return rawChunks != null && headWritten;
  }

  private void reportWritten() {
    WorkerSession current = session;
    if (current != null && !closed) {
      engine.post(new SessionWritten(current));
    }
  }

  /**
   * Frames jobs from {@code from} on into {@code frames}, from its index {@code start}, until it
   * holds {@link #PIECE_BYTES} or the delivery ends, so the socket sees one write per piece;
   * returns the index of the first job left out. In JSON framings a plain job is laid out
   * straight into the frames, and a generator is made only for a piece with a job that is not;
   * MessagePack needs one per job, because its generator encodes a root value only when it closes.
   */
  private int encode(List<JobSnapshot> jobs, int from, ByteBuf frames, int start)
      throws IOException {
    OutputStream out = new ByteBufOutputStream(frames);
    int next = from;
    if (format == StreamFormat.MSGPACK) {
      while (next < jobs.size() && frames.writerIndex() - start < PIECE_BYTES) {
        JobSnapshot job = jobs.get(next++);
        byte[] payload = payloadOf(job);
        if (payload != null) {
          int lengthAt = frames.writerIndex();
          frames.writeInt(0);
          try (JsonGenerator gen = Format.MSGPACK.mapper().getFactory().createGenerator(out)) {
            JobWriter.writeJob(gen, job, payload);
          }
          frames.setInt(lengthAt, frames.writerIndex() - lengthAt - 4);
        }
      }
      return next;
    }
    JsonGenerator gen = null;
    try {
      while (next < jobs.size() && frames.writerIndex() - start < PIECE_BYTES) {
        JobSnapshot job = jobs.get(next++);
        byte[] payload = payloadOf(job);
        if (payload == null) {
          continue;
        }
        format.writeJobStart(out);
        if (!plainJobs.writeJob(out, job, payload)) {
          if (gen == null) {
            gen = Format.JSON.mapper().getFactory().createGenerator(out);
            // A piece may hold several generated jobs, each a root value: no space between them.
            gen.setRootValueSeparator(null);
          }
          JobWriter.writeJob(gen, job, payload);
          // Into the frames before anything is written to them directly again.
          gen.flush();
        }
        format.writeJobEnd(out);
      }
    } catch (Throwable e) {
      if (gen != null) {
        try {
          gen.close();
        } catch (IOException | RuntimeException closing) {
          e.addSuppressed(closing);
        }
      }
      throw e;
    }
    if (gen != null) {
      gen.close();
    }
    return next;
  }

  /** The payload to send, or null when the job was deleted since its dispatch. */
  private byte[] payloadOf(JobSnapshot job) {
    return job.payload() != null ? job.payload() : store.readPayload(job.id());
  }

  private void armHeartbeat(long delayMs) {
    heartbeatTimer = vertx.setTimer(Math.max(1, delayMs), id -> heartbeatDue());
  }

  private void heartbeatDue() {
    if (closed) {
      return;
    }
    long idleMs = System.currentTimeMillis() - lastWriteMs;
    if (idleMs >= heartbeatMs) {
      writeHeartbeat(Buffer.buffer(format.heartbeat()));
      lastWriteMs = System.currentTimeMillis();
      armHeartbeat(heartbeatMs);
    } else {
      armHeartbeat(heartbeatMs - idleMs);
    }
  }

  /** Ends the stream from the server side (shutdown); safe to call from any thread. */
  void endOnItsLoop() {
    context.runOnContext(v -> {
      if (!closed && !response.ended()) {
        response.end();
      }
      onClosed();
    });
  }

  private void onClosed() {
    if (closed) {
      return;
    }
    closed = true;
    if (heartbeatTimer >= 0) {
      vertx.cancelTimer(heartbeatTimer);
    }
    WorkerSession current = session;
    if (current != null) {
      engine.post((eng, nowMs) -> {
        eng.closeSession(current, nowMs);
        return null;
      });
    }
    LOG.debug("take stream of worker {} closed", workerId);
  }
}
