package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;

/** Walks the ids of an {@link IdSet}'s chunks, skipping those marked gone. */
final class ChunkCursor implements IdCursor {
  private final IdSet.Chunk[] chunks;
  private final boolean descending;
  private int chunk;
  private int at;
  private byte[] current;

  ChunkCursor(IdSet.Chunk[] chunks, boolean descending) {
    this.chunks = chunks;
    this.descending = descending;
    if (descending) {
      chunk = chunks.length - 1;
      at = chunk < 0 ? -1 : chunks[chunk].size() - 1;
    }
    settle();
  }

  @Override
  public byte[] current() {
    return current;
  }

  @Override
  public void next() {
    if (current == null) {
      return;
    }
    at += descending ? -1 : 1;
    settle();
  }

  @Override
  public void seek(byte[] target) {
    if (current == null || IdCursor.compare(current, target, descending) >= 0) {
      return;
    }
    JobId id = Keys.jobId(target);
    long hi = id.hi();
    long lo = id.lo();
    int found = IdSet.chunkOf(chunks, hi, lo);
    if (descending) {
      if (found < 0) {
        chunk = -1;
      } else {
        int i = chunks[found].indexOf(hi, lo);
        chunk = found;
        at = i >= 0 ? i : -i - 2; // the last id before the target
      }
    } else {
      if (found < 0) {
        chunk = 0;
        at = 0;
      } else {
        int i = chunks[found].indexOf(hi, lo);
        chunk = found;
        at = i >= 0 ? i : -i - 1; // the first id after the target
      }
    }
    settle();
  }

  /** Moves to the nearest id not gone, from the current position onwards. */
  private void settle() {
    while (chunk >= 0 && chunk < chunks.length) {
      IdSet.Chunk c = chunks[chunk];
      int size = c.size();
      while (at >= 0 && at < size) {
        if (!c.isGone(at)) {
          current = Keys.job(c.hi(at), c.lo(at));
          return;
        }
        at += descending ? -1 : 1;
      }
      chunk += descending ? -1 : 1;
      if (chunk >= 0 && chunk < chunks.length) {
        at = descending ? chunks[chunk].size() - 1 : 0;
      }
    }
    current = null;
  }

  @Override
  public void close() {}
}
