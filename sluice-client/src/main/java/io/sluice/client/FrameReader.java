package io.sluice.client;

import java.io.IOException;

/** Splits a take stream's body into messages (API.md §3.3). */
interface FrameReader {
  /** The next message; empty for a heartbeat, null when the stream has ended. */
  byte[] next() throws IOException;
}
