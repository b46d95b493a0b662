package io.sluice.cluster;

import java.nio.charset.StandardCharsets;

/**
 * Where a leader serves: its node id, its primary listener's base URL and its admin listener's
 * (empty without one). A new leader announces them through the log, so every node can send a
 * client there whatever addresses the listeners were given.
 */
public record LeaderUrls(String nodeId, String apiUrl, String adminUrl) {
  byte[] encode() {
    return (nodeId + "\n" + apiUrl + "\n" + adminUrl).getBytes(StandardCharsets.UTF_8);
  }

  static LeaderUrls decode(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n", -1);
    if (lines.length != 3) {
      throw new IllegalArgumentException("malformed leader announcement");
    }
    return new LeaderUrls(lines[0], lines[1], lines[2]);
  }
}
