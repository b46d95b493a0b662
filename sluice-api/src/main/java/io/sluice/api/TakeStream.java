package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.wire.BufferOutputStream;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.JobWriter;
import io.sluice.api.wire.StreamFormat;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.JobStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.io.IOException;
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
 * <p>{@link #deliver} runs on the engine thread and only hops to this stream's event loop; all
 * other methods run on that event loop.
 */
final class TakeStream implements JobSink {
  private static final Logger LOG = LoggerFactory.getLogger(TakeStream.class);

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

  TakeStream(Vertx vertx, HttpServerResponse response, StreamFormat format, EngineGateway engine,
      JobStore store, long heartbeatMs, String workerId) {
    this.vertx = vertx;
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
    response.writeHead();
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
    context.runOnContext(v -> write(jobs));
  }

  @Override
  public boolean pacedByWrites() {
    return true;
  }

  private void write(List<JobSnapshot> jobs) {
    if (closed) {
      return;
    }
    Buffer frames;
    try {
      frames = encode(jobs);
    } catch (IOException | RuntimeException e) {
      // The jobs are in flight on this stream and can no longer reach it: end the stream so
      // that they are requeued instead of waiting for the client to hang up.
      LOG.error("cannot encode jobs for worker {}; closing its stream", workerId, e);
      response.reset();
      onClosed();
      return;
    }
    if (frames.length() == 0) {
      reportWritten();
      return;
    }
    lastWriteMs = System.currentTimeMillis();
    // Reported once the frames are in the socket, not merely queued in the server: a worker
    // that stops reading then holds what the kernel took plus this one delivery.
    response.write(frames).onComplete(done -> reportWritten());
  }

  private void reportWritten() {
    WorkerSession current = session;
    if (current != null && !closed) {
      engine.post((eng, nowMs) -> {
        eng.sessionWritten(current);
        return null;
      });
    }
  }

  /**
   * Frames every job of one delivery into a single buffer, so the socket sees one write. JSON
   * framings share one generator per delivery; MessagePack needs one per job, because its
   * generator encodes a root value only when it closes.
   */
  private Buffer encode(List<JobSnapshot> jobs) throws IOException {
    Buffer frames = Buffer.buffer(jobs.size() * 320);
    BufferOutputStream out = new BufferOutputStream(frames);
    if (format == StreamFormat.MSGPACK) {
      for (JobSnapshot job : jobs) {
        byte[] payload = payloadOf(job);
        if (payload != null) {
          int lengthAt = frames.length();
          frames.appendInt(0);
          try (JsonGenerator gen = Format.MSGPACK.mapper().getFactory().createGenerator(out)) {
            JobWriter.writeJob(gen, job, payload);
          }
          frames.setInt(lengthAt, frames.length() - lengthAt - 4);
        }
      }
      return frames;
    }
    try (JsonGenerator gen = Format.JSON.mapper().getFactory().createGenerator(out)) {
      gen.setRootValueSeparator(null);
      for (JobSnapshot job : jobs) {
        byte[] payload = payloadOf(job);
        if (payload == null) {
          continue;
        }
        if (format == StreamFormat.SSE) {
          gen.writeRaw("data: ");
        }
        JobWriter.writeJob(gen, job, payload);
        gen.writeRaw(format == StreamFormat.SSE ? "\n\n" : "\n");
      }
    }
    return frames;
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
      response.write(Buffer.buffer(format.heartbeat()));
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
