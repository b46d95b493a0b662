package io.sluice.engine;

import io.sluice.engine.job.BatchConfig;

/**
 * Evaluates the jq expressions of a batch (API.md §4.6) with {@code $existing} and {@code $new}
 * bound to two payloads (canonical JSON) and {@code null} as input. The engine knows no jq; the
 * server plugs an evaluator in.
 */
public interface BatchExpressions {
  /** True when {@code when}'s first output is truthy; false when falsy, empty or failing. */
  boolean shouldFold(BatchConfig batch, byte[] existing, byte[] incoming);

  /**
   * The single output of {@code fold}, as canonical JSON.
   *
   * @throws SluiceException.Unprocessable {@code batch fold failed: <detail>} when it fails or
   *     yields zero or several outputs
   */
  byte[] fold(BatchConfig batch, byte[] existing, byte[] incoming);

  /** For engines that are never given batched jobs. */
  BatchExpressions NONE = new BatchExpressions() {
    @Override
    public boolean shouldFold(BatchConfig batch, byte[] existing, byte[] incoming) {
      throw new SluiceException.Unprocessable("batched jobs are not supported by this engine");
    }

    @Override
    public byte[] fold(BatchConfig batch, byte[] existing, byte[] incoming) {
      throw new SluiceException.Unprocessable("batched jobs are not supported by this engine");
    }
  };
}
