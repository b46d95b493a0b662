package io.sluice.engine.replay;

import io.sluice.engine.BatchExpressions;
import io.sluice.engine.job.BatchConfig;
import java.nio.charset.StandardCharsets;

/**
 * A deterministic stand-in for jq: payloads are JSON arrays, {@code when} is {@code max:N} (fold
 * while the combined array has at most N items) and {@code fold} concatenates.
 */
final class ConcatBatches implements BatchExpressions {
  @Override
  public boolean shouldFold(BatchConfig batch, byte[] existing, byte[] incoming) {
    int max = Integer.parseInt(batch.when().substring("max:".length()));
    return items(existing) + items(incoming) <= max;
  }

  @Override
  public byte[] fold(BatchConfig batch, byte[] existing, byte[] incoming) {
    return (inner(existing) + "," + inner(incoming)).transform(joined -> "[" + joined + "]")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** A JSON array of {@code count} ones. */
  static byte[] payload(int count) {
    return ("[" + "1,".repeat(count - 1) + "1]").getBytes(StandardCharsets.UTF_8);
  }

  static BatchConfig config(String key, int maxItems) {
    return new BatchConfig(key, "max:" + maxItems, "concat");
  }

  private static int items(byte[] payload) {
    return inner(payload).split(",").length;
  }

  private static String inner(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8);
    return text.substring(1, text.length() - 1);
  }
}
