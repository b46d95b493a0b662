package io.sluice.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
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
  private final Http1Connection connection;
  private final FrameReader frames;
  private final ObjectReader jobs;
  private volatile long waitingSinceNanos;
  private volatile boolean reading;
  private volatile boolean closed;

  TakeStream(InputStream body, Http1Connection connection, boolean msgpack, ObjectMapper mapper) {
    this.connection = connection;
    this.frames = msgpack
        ? new MsgpackFrames(new BufferedInputStream(body, 64 * 1024))
        : new NdjsonFrames(body);
    this.jobs = mapper.readerFor(Job.class);
  }

  /**
   * Blocks until the next job, skipping heartbeats. Returns null when the server ended the
   * stream or it was closed; throws {@link ConnectionException} when the connection failed.
   */
  public Job next() {
    waitingSinceNanos = System.nanoTime();
    reading = true;
    try {
      while (!closed) {
        byte[] frame = frames.next();
        if (frame == null) {
          return null;
        }
        waitingSinceNanos = System.nanoTime();
        if (frame.length > 0) {
          return jobs.readValue(frame);
        }
      }
      return null;
    } catch (IOException e) {
      if (closed) {
        return null;
      }
      throw new ConnectionException("GET /jobs/take", e);
    } finally {
      reading = false;
    }
  }

  /**
   * How long a reader has been waiting in {@link #next} without receiving anything, not even a
   * heartbeat; 0 when nobody is reading. The server sends a heartbeat every few seconds (3 s by
   * default), so a long silence means the connection is dead.
   */
  public long idleNanos() {
    return !reading ? 0 : System.nanoTime() - waitingSinceNanos;
  }

  /** Closes the connection, which also ends a {@link #next} blocked in another thread. */
  @Override
  public void close() {
    closed = true;
    connection.close();
  }
}
