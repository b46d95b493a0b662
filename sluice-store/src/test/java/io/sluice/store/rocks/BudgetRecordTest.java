package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.StrategyType;
import org.junit.jupiter.api.Test;

/**
 * Budget records across the format changes that added the end of a pause (X6), then
 * {@code durable} (X4) and {@code partitioned} (X3), and the token state records of durable
 * budgets.
 */
class BudgetRecordTest {
  private static final BudgetPolicy POLICY =
      new BudgetPolicy(10, StrategyType.TIME_BASED, 60_000, 20L);

  @Test
  void aRecordWrittenBeforePausesExistedReadsAsNotPaused() {
    byte[] firstFormat = new RecordWriter()
        .writeByte(1)
        .writeLong(10)
        .writeByte(StrategyType.TIME_BASED.ordinal())
        .writeLong(60_000)
        .writeByte(1)
        .writeLong(20)
        .writeLong(1_000)
        .writeLong(2_000)
        .toByteArray();

    assertThat(RecordCodec.decodeBudget("old", firstFormat))
        .isEqualTo(new BudgetView("old", POLICY, 1_000, 2_000));
  }

  /** A paused time-based budget as format 2 wrote it: no flags byte (durable, partitioned). */
  private static byte[] pausedInTheSecondFormat() {
    return new RecordWriter()
        .writeByte(2)
        .writeLong(10)
        .writeByte(StrategyType.TIME_BASED.ordinal())
        .writeLong(60_000)
        .writeByte(1)
        .writeLong(20)
        .writeLong(1_000)
        .writeLong(2_000)
        .writeByte(1)
        .writeLong(90_000)
        .toByteArray();
  }

  @Test
  void aRecordWrittenBeforePartitionsExistedReadsAsPlain() {
    byte[] secondFormat = pausedInTheSecondFormat();

    assertThat(RecordCodec.decodeBudget("old", secondFormat))
        .isEqualTo(new BudgetView("old", POLICY, false, 1_000, 2_000, 90_000L));
  }

  @Test
  void partitionedBudgetsRoundTrip() {
    BudgetView partitioned = new BudgetView("per-account", POLICY, true, 1_000, 2_000, null);

    assertThat(RecordCodec.decodeBudget("per-account", RecordCodec.encodeBudget(partitioned)))
        .isEqualTo(partitioned);
  }

  @Test
  void pausedAndUnpausedBudgetsRoundTrip() {
    BudgetView paused = new BudgetView("p", POLICY, 1_000, 2_000, 90_000L);
    BudgetView unpaused = new BudgetView("u", POLICY, 1_000, 2_000);

    assertThat(RecordCodec.decodeBudget("p", RecordCodec.encodeBudget(paused))).isEqualTo(paused);
    assertThat(RecordCodec.decodeBudget("u", RecordCodec.encodeBudget(unpaused)))
        .isEqualTo(unpaused);
  }

  @Test
  void aRecordWrittenBeforeDurableExistedReadsAsNotDurable() {
    byte[] secondFormat = pausedInTheSecondFormat();

    assertThat(RecordCodec.decodeBudget("old", secondFormat))
        .isEqualTo(new BudgetView("old", POLICY, 1_000, 2_000, 90_000L));
  }

  @Test
  void aDurableBudgetRoundTrips() {
    BudgetView durable = new BudgetView("d",
        new BudgetPolicy(10, StrategyType.TIME_BASED, 60_000, null, true), 1_000, 2_000);

    assertThat(RecordCodec.decodeBudget("d", RecordCodec.encodeBudget(durable)))
        .isEqualTo(durable);
  }

  @Test
  void aBucketStateRoundTrips() {
    BucketState state = new BucketState(7, 59_999, 3, 1_700_000_000_123L);

    assertThat(RecordCodec.decodeBucketState("d", RecordCodec.encodeBucketState(state)))
        .isEqualTo(state);
  }
}
