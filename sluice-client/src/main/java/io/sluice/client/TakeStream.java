package io.sluice.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.model.Job;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An open {@code GET /jobs/take} connection (API.md §8.4). Every job it returns is in flight
 * for this connection until acknowledged or failed; closing the stream makes the server requeue
 * the ones still unfinished. One thread reads; any thread may close.
 */
public final class TakeStream implements AutoCloseable {
  private final InputStream body;
  private final FrameReader frames;
  private final ObjectMapper mapper;
  private volatile long waitingSinceNanos;
  private volatile Thread reader;
  private volatile boolean closed;

  TakeStream(InputStream body, boolean msgpack, ObjectMapper mapper) {
    BufferedInputStream buffered = new BufferedInputStream(body, 64 * 1024);
    this.body = body;
    this.frames = msgpack ? new MsgpackFrames(buffered) : new NdjsonFrames(buffered);
    this.mapper = mapper;
  }

  /**
   * Blocks until the next job, skipping heartbeats. Returns null when the server ended the
   * stream or it was closed; throws {@link ConnectionException} when the connection failed.
   */
  public Job next() {
    waitingSinceNanos = System.nanoTime();
    reader = Thread.currentThread();
    try {
      while (!closed) {
        byte[] frame = frames.next();
        if (frame == null) {
          return null;
        }
        waitingSinceNanos = System.nanoTime();
        if (frame.length > 0) {
          return mapper.readValue(frame, Job.class);
        }
      }
      return null;
    } catch (IOException e) {
      if (closed) {
        return null;
      }
      throw new ConnectionException("GET /jobs/take", e);
    } finally {
      reader = null;
    }
  }

  /**
   * How long a reader has been waiting in {@link #next} without receiving anything, not even a
   * heartbeat; 0 when nobody is reading. The server sends a heartbeat every few seconds (3 s by
   * default), so a long silence means the connection is dead.
   */
  public long idleNanos() {
    return reader == null ? 0 : System.nanoTime() - waitingSinceNanos;
  }

  @Override
  public void close() {
    closed = true;
    try {
      body.close();
    } catch (IOException e) {
      // The connection is being abandoned either way.
    }
    // Closing the JDK client's body stream does not wake a read blocked on it; an interrupt does.
    Thread blocked = reader;
    if (blocked != null && blocked != Thread.currentThread()) {
      blocked.interrupt();
    }
  }
}
