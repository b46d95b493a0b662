package io.sluice.engine.replay;

import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.cron.CronExpression;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupSpec;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.replay.Commands.BindDraw;
import io.sluice.engine.replay.Commands.CronDraw;
import io.sluice.engine.replay.Commands.JobDraw;
import io.sluice.engine.replay.Commands.PatchDraw;
import io.sluice.engine.replay.Commands.PolicyDraw;
import io.sluice.engine.replay.Commands.PutCronGroup;
import io.sluice.engine.replay.Commands.RebindDraw;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns drawn commands into the requests the API would hand the engine, with the names of
 * {@link Commands}: queues {@code q0..}, budgets {@code b0..}, unique keys {@code u0..}, batch
 * keys {@code k0..}, cron groups {@code g0..} with entries {@code e0, e1}.
 */
final class Requests {
  /** The zone a cron group may name; its entries may name UTC instead. */
  static final ZoneId GROUP_ZONE = ZoneId.of("Asia/Kolkata");
  static final long COMPLETED_RETENTION_MS = 5_000;

  private Requests() {}

  static String queue(int index) {
    return "q" + index;
  }

  static String budget(int index) {
    return "b" + index;
  }

  static String cronGroup(int index) {
    return "g" + index;
  }

  /** A job of the request {@code draw}; {@code id} null for a cron template. */
  static NewJob newJob(JobDraw draw, JobId id, long nowMs) {
    Long readyAtMs = draw.delayMs() == 0 || id == null ? null : nowMs + draw.delayMs();
    RetentionPolicy retention = switch (draw.options().retention()) {
      case 1 -> new RetentionPolicy(COMPLETED_RETENTION_MS, null);
      case 2 -> new RetentionPolicy(0L, 0L);
      default -> null;
    };
    // The API refuses unique_key together with batch (400), so a drawn batch wins.
    UniqueKey unique = draw.unique() == null || draw.batch() != null ? null
        : new UniqueKey("u" + draw.unique().key(), draw.unique().scope());
    return new NewJob(id, "t" + draw.options().type(), queue(draw.queue()), draw.priority(),
        readyAtMs, draw.options().retryLimit(), null, retention,
        ConcatBatches.payload(draw.options().items()), bindings(draw.bindings()), unique,
        draw.batch() == null ? null
            : ConcatBatches.config("k" + draw.batch().key(), draw.batch().maxItems()));
  }

  static List<BindingRequest> bindings(List<BindDraw> draws) {
    return draws.stream().map(Requests::binding).toList();
  }

  static BindingRequest binding(BindDraw draw) {
    return new BindingRequest(budget(draw.key()), draw.cost(),
        draw.createWith() == null ? null : policy(draw.createWith()));
  }

  static PolicySpec policy(PolicyDraw draw) {
    return draw.timeBased()
        ? new PolicySpec(draw.allocation(), "time_based", draw.durationMs(), draw.burst())
        : new PolicySpec(draw.allocation(), "while_in_flight", null, null);
  }

  static JobPatch patch(PatchDraw draw, long nowMs) {
    boolean setReadyAt = draw.readyAtMs() != -1;
    Long readyAtMs = draw.readyAtMs() > 0 ? nowMs + draw.readyAtMs() : null;
    boolean setRetention = draw.retention() != 0;
    return new JobPatch(draw.queue() < 0 ? null : queue(draw.queue()), draw.priority(),
        setReadyAt, readyAtMs, draw.retryLimit() != null, draw.retryLimit(), false, null,
        setRetention, draw.retention() == 1, draw.retention() == 2,
        draw.retention() == 2 ? COMPLETED_RETENTION_MS : null, false, null);
  }

  static BindingChange bindingChange(RebindDraw draw) {
    return switch (draw.kind()) {
      case 0 -> new BindingChange.ReplaceAll(bindings(draw.all()));
      case 1 -> new BindingChange.Add(binding(draw.binding()));
      case 2 -> new BindingChange.Put(binding(draw.binding()));
      case 3 -> new BindingChange.PatchCost(budget(draw.binding().key()), draw.binding().cost());
      default -> new BindingChange.Remove(budget(draw.binding().key()));
    };
  }

  /** The jobs of one queue, of every status or of one class (1 queued, 2 in flight, 3 done). */
  static JobFilter inQueue(int queue, int statusClass) {
    Set<JobStatus> statuses = switch (statusClass) {
      case 1 -> Set.of(JobStatus.SCHEDULED, JobStatus.READY);
      case 2 -> Set.of(JobStatus.IN_FLIGHT);
      case 3 -> Set.of(JobStatus.COMPLETED, JobStatus.DEAD);
      default -> null;
    };
    return new JobFilter(null, Set.of(queue(queue)), null, statuses, null);
  }

  /** The group whole, its entries named e0/e1 (a repeated name keeps its first draw). */
  static GroupSpec cronGroupSpec(PutCronGroup draw) {
    Set<Integer> names = new LinkedHashSet<>();
    List<EntrySpec> entries = new ArrayList<>();
    for (CronDraw entry : draw.entries()) {
      if (names.add(entry.name())) {
        entries.add(new EntrySpec("e" + entry.name(),
            CronExpression.parse(Commands.CRON_EXPRESSIONS.get(entry.expression())),
            entry.ownZone() ? ZoneOffset.UTC : null, null, newJob(entry.template(), null, 0)));
      }
    }
    return new GroupSpec(draw.paused(), draw.zoned() ? GROUP_ZONE : null, entries);
  }
}
