package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Optional;

/** What the listeners need to know of a replicated node's cluster (docs/cluster.md). */
public interface ClusterView {
  /** The leader's base URL for its primary or admin listener, once it has announced it. */
  Optional<String> leaderUrl(boolean admin);

  /** Writes the body of {@code GET /cluster}: this node's role, term, leader and peers. */
  void writeStatus(JsonGenerator json) throws IOException;
}
