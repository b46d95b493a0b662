package io.sluice.client;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.sluice.client.model.Job;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An open {@code GET /jobs/take} connection (API.md §8.4). Every job it returns is in flight
 * for this connection until acknowledged or failed; closing the stream makes the server requeue
 * the ones still unfinished. One thread reads; any thread may close.
 *
 * <p>An NDJSON stream is read by one parser from start to end, heartbeats (blank lines) being
 * whitespace between jobs: a parser per line cost a fifth of the reading thread's time.
 */
public final class TakeStream implements AutoCloseable {
  private final Http1Connection connection;
  private final InputStream body;
  private final boolean msgpack;
  private final ObjectReader jobs;
  private MsgpackFrames frames;
  private MappingIterator<Job> lines;
  private volatile long waitingSinceNanos;
  private volatile boolean reading;
  private volatile boolean closed;

  TakeStream(InputStream body, Http1Connection connection, boolean msgpack, ObjectMapper mapper) {
    this.connection = connection;
    this.body = new ArrivalWatch(body);
    this.msgpack = msgpack;
    this.jobs = mapper.readerFor(Job.class);
  }

  /**
   * Blocks until the next job, skipping heartbeats. Returns null when the server ended the
   * stream or it was closed; throws {@link ConnectionException} when the connection failed (a
   * job cut off half-way included).
   */
  public Job next() {
    waitingSinceNanos = System.nanoTime();
    reading = true;
    try {
      return closed ? null : msgpack ? nextFrame() : nextLine();
    } catch (IOException e) {
      if (closed) {
        return null;
      }
      throw new ConnectionException("GET /jobs/take", e);
    } finally {
      reading = false;
    }
  }

  private Job nextLine() throws IOException {
    if (lines == null) {
      lines = jobs.readValues(body); // reads up to the first job: not done before a next()
    }
    return lines.hasNextValue() ? lines.nextValue() : null;
  }

  private Job nextFrame() throws IOException {
    if (frames == null) {
      frames = new MsgpackFrames(new BufferedInputStream(body, 64 * 1024));
    }
    byte[] frame;
    while ((frame = frames.next()) != null) {
      if (frame.length > 0) {
        return jobs.readValue(frame);
      }
    }
    return null;
  }

  /**
   * How long a reader has been waiting in {@link #next} without receiving anything, not even a
   * heartbeat; 0 when nobody is reading. The server sends a heartbeat every few seconds (3 s by
   * default), so a long silence means the connection is dead.
   */
  public long idleNanos() {
    return !reading ? 0 : System.nanoTime() - waitingSinceNanos;
  }

  /**
   * Runs {@code listener} on the reading thread whenever it has read everything that arrived and
   * is about to wait for more: the end of a burst of jobs.
   */
  void onDrained(Runnable listener) {
    connection.beforeWaiting(listener);
  }

  /**
   * Runs {@code listener} on the reading thread whenever it has used everything read so far and
   * its next read may wait: before {@link #onDrained}'s listener, and also while the rest of a
   * TLS record is on its way.
   */
  void onReadMayWait(Runnable listener) {
    connection.beforeReading(listener);
  }

  /** Closes the connection, which also ends a {@link #next} blocked in another thread. */
  @Override
  public void close() {
    closed = true;
    connection.close();
  }

  /** Notes the instant of every arrival, heartbeats included. */
  private final class ArrivalWatch extends FilterInputStream {
    ArrivalWatch(InputStream in) {
      super(in);
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        waitingSinceNanos = System.nanoTime();
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int read = super.read(b, off, len);
      if (read > 0) {
        waitingSinceNanos = System.nanoTime();
      }
      return read;
    }
  }
}
