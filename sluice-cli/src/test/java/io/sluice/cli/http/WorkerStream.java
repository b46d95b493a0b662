package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A worker's {@code GET /jobs/take} connection over a plain HTTP/1.1 socket, so the test controls
 * exactly when the connection closes. A reader thread decodes the chunked body into frames
 * (NDJSON lines or length-prefixed MessagePack maps, by the response's Content-Type) and queues
 * them; the test thread consumes them with bounded waits.
 */
final class WorkerStream implements AutoCloseable {
  /** One decoded message of the stream. */
  sealed interface Frame permits Job, Heartbeat, Malformed, End {}

  record Job(JsonNode body) implements Frame {}

  record Heartbeat() implements Frame {}

  /** A frame that is neither a heartbeat nor a parsable job; carries its raw text. */
  record Malformed(String raw, String problem) implements Frame {}

  /** The stream ended (server closed it, or the socket failed). */
  record End(String reason) implements Frame {}

  private final Socket socket;
  private final int status;
  private final Map<String, String> headers;
  private final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
  private final Thread reader;
  private volatile boolean closing;
  private boolean ended;

  private WorkerStream(Socket socket, int status, Map<String, String> headers, InputStream body,
      boolean read) {
    this.socket = socket;
    this.status = status;
    this.headers = headers;
    boolean msgpack = ServerFixture.MSGPACK_STREAM_TYPE.equals(headers.get("content-type"));
    this.reader = new Thread(() -> readFrames(body, msgpack), "test-take-reader");
    this.reader.setDaemon(true);
    if (status == 200 && read) {
      reader.start();
    }
  }

  /** Connects and sends the request; returns once the status line and headers have arrived. */
  static WorkerStream open(int port, String pathAndQuery, String accept) {
    return open(port, pathAndQuery, accept, true, 0);
  }

  /**
   * A stream whose body is never read, over a socket with a small receive buffer, to simulate a
   * worker that has stopped reading (TCP backpressure).
   */
  static WorkerStream openUnread(int port, String pathAndQuery) {
    return open(port, pathAndQuery, null, false, 16 * 1024);
  }

  private static WorkerStream open(int port, String pathAndQuery, String accept, boolean read,
      int receiveBufferBytes) {
    Socket socket = new Socket();
    try {
      if (receiveBufferBytes > 0) {
        socket.setReceiveBufferSize(receiveBufferBytes);
      }
      socket.connect(new InetSocketAddress("127.0.0.1", port),
          (int) ServerFixture.TIMEOUT.toMillis());
      socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
      StringBuilder request = new StringBuilder()
          .append("GET ").append(pathAndQuery).append(" HTTP/1.1\r\n")
          .append("Host: 127.0.0.1:").append(port).append("\r\n")
          .append("Worker-Id: http-test\r\n");
      if (accept != null) {
        request.append("Accept: ").append(accept).append("\r\n");
      }
      request.append("\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      String statusLine = readLine(in);
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
        throw new IOException("bad status line: " + statusLine);
      }
      int status = Integer.parseInt(parts[1]);
      Map<String, String> headers = new HashMap<>();
      for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
        int colon = line.indexOf(':');
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).trim());
      }
      // The reader thread blocks until a frame or close(); close() unblocks it.
      socket.setSoTimeout(0);
      InputStream body = "chunked".equalsIgnoreCase(headers.get("transfer-encoding"))
          ? new ChunkedInput(in)
          : in;
      return new WorkerStream(socket, status, headers, body, read);
    } catch (IOException e) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // Already failing.
      }
      throw new UncheckedIOException("opening take stream " + pathAndQuery, e);
    }
  }

  int status() {
    return status;
  }

  /** A response header by case-insensitive name, or null. */
  String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  /** The next frame of any kind, or null when none arrives within {@code timeout}. */
  Frame nextFrame(Duration timeout) {
    if (ended) {
      return new End("already ended");
    }
    try {
      Frame frame = frames.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (frame instanceof End) {
        ended = true;
      }
      return frame;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }

  /** The next job, skipping heartbeats; fails after {@link ServerFixture#TIMEOUT}. */
  JsonNode nextJob() {
    return nextJob(ServerFixture.TIMEOUT);
  }

  JsonNode nextJob(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      Frame frame = left <= 0 ? null : nextFrame(Duration.ofNanos(left));
      if (frame == null) {
        throw new AssertionError("no job arrived within " + timeout.toMillis() + " ms");
      }
      if (frame instanceof Job job) {
        return job.body();
      }
      if (frame instanceof Malformed bad) {
        throw new AssertionError("malformed frame (" + bad.problem() + "): " + bad.raw());
      }
      if (frame instanceof End end) {
        throw new AssertionError("stream ended: " + end.reason());
      }
      // A heartbeat: skipped, as clients do.
    }
  }

  List<JsonNode> nextJobs(int count) {
    List<JsonNode> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      jobs.add(nextJob());
    }
    return jobs;
  }

  /** Asserts that only heartbeats (or nothing) arrive during {@code window}. */
  void assertNoJobWithin(Duration window) {
    long deadline = System.nanoTime() + window.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      Frame frame = nextFrame(Duration.ofNanos(left));
      if (frame == null || frame instanceof Heartbeat) {
        continue;
      }
      throw new AssertionError("expected no job, got " + frame);
    }
  }

  /** Waits for a heartbeat, failing if a job or anything else arrives first. */
  void awaitHeartbeat(Duration timeout) {
    Frame frame = nextFrame(timeout);
    assertThat(frame).as("frame within %d ms", timeout.toMillis()).isInstanceOf(Heartbeat.class);
  }

  /** Waits until the server ends the stream; returns false on timeout. */
  boolean awaitEnd(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      Frame frame = nextFrame(Duration.ofNanos(left));
      if (frame instanceof End) {
        return true;
      }
    }
  }

  @Override
  public void close() {
    closing = true;
    try {
      socket.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    try {
      reader.join(ServerFixture.TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- reader thread -------------------------------------------------------------------------

  private void readFrames(InputStream body, boolean msgpack) {
    try {
      if (msgpack) {
        readMsgpackFrames(new DataInputStream(body));
      } else {
        readNdjsonFrames(body);
      }
      frames.add(new End("end of body"));
    } catch (IOException e) {
      frames.add(new End(closing ? "closed by test" : "socket error: " + e));
    }
  }

  private void readMsgpackFrames(DataInputStream in) throws IOException {
    while (true) {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException e) {
        return;
      }
      if (length == 0) {
        frames.add(new Heartbeat());
        continue;
      }
      if (length < 0 || length > (256 << 20)) {
        frames.add(new Malformed(Integer.toString(length), "bad frame length"));
        return;
      }
      byte[] document = new byte[length];
      in.readFully(document);
      try {
        JsonNode job = ServerFixture.MSGPACK.readTree(document);
        frames.add(job != null && job.isObject()
            ? new Job(job)
            : new Malformed(String.valueOf(job), "frame is not a map"));
      } catch (IOException e) {
        frames.add(new Malformed(length + " bytes", e.getMessage()));
      }
    }
  }

  private void readNdjsonFrames(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b != '\n') {
        line.write(b);
        continue;
      }
      byte[] bytes = line.toByteArray();
      line.reset();
      if (bytes.length == 0) {
        frames.add(new Heartbeat());
        continue;
      }
      String text = new String(bytes, StandardCharsets.UTF_8);
      try {
        JsonNode job = ServerFixture.JSON.readTree(bytes);
        frames.add(job != null && job.isObject()
            ? new Job(job)
            : new Malformed(text, "line is not a JSON object"));
      } catch (IOException e) {
        frames.add(new Malformed(text, e.getMessage()));
      }
    }
    if (line.size() > 0) {
      frames.add(new Malformed(line.toString(StandardCharsets.UTF_8), "unterminated line"));
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        String text = line.toString(StandardCharsets.US_ASCII);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
      }
      line.write(b);
    }
    throw new EOFException("connection closed while reading a line");
  }

  /** Decodes an HTTP/1.1 chunked body; ends at the zero-length chunk. */
  private static final class ChunkedInput extends InputStream {
    private final InputStream in;
    private long remaining;
    private boolean started;
    private boolean done;

    ChunkedInput(InputStream in) {
      this.in = in;
    }

    private boolean nextChunk() throws IOException {
      if (done) {
        return false;
      }
      if (started) {
        String crlf = readLine(in);
        if (!crlf.isEmpty()) {
          throw new IOException("missing CRLF after chunk, got: " + crlf);
        }
      }
      started = true;
      String sizeLine = readLine(in);
      int semicolon = sizeLine.indexOf(';');
      String hex = (semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim();
      remaining = Long.parseLong(hex, 16);
      if (remaining == 0) {
        done = true;
        return false;
      }
      return true;
    }

    @Override
    public int read() throws IOException {
      if (remaining == 0 && !nextChunk()) {
        return -1;
      }
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed inside a chunk");
      }
      remaining--;
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (length == 0) {
        return 0;
      }
      if (remaining == 0 && !nextChunk()) {
        return -1;
      }
      int n = in.read(buffer, offset, (int) Math.min(length, remaining));
      if (n < 0) {
        throw new EOFException("connection closed inside a chunk");
      }
      remaining -= n;
      return n;
    }
  }
}
