package io.sluice.engine;

import io.sluice.engine.cron.CronGroup;
import io.sluice.engine.cron.CronGroupCodec;
import io.sluice.engine.cron.JobTemplate;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires due cron entries (API.md §9.6): each fire enqueues one job, ready at its scheduled
 * occurrence, in the same turn as the schedule change that records it. Fired jobs take their ids
 * from the injected generator, so firing repeats exactly when the generator does.
 *
 * <p>Runs on the engine thread.
 */
public final class CronFiring {
  /** What firing does to the rest of the engine. */
  public interface Host {
    /** Enqueues a fired job in the current turn; throws {@link SluiceException} if it cannot. */
    void enqueue(NewJob job, long nowMs);

    /** Adds a schedule change made by firing to the current turn, in the enqueue commit mode. */
    void writeFired(Mutation mutation);
  }

  private static final Logger LOG = LoggerFactory.getLogger(CronFiring.class);

  private final CronAdmin crons;
  private final Host host;
  private final JobIdGenerator ids;

  public CronFiring(CronAdmin crons, Host host, JobIdGenerator ids) {
    this.crons = crons;
    this.host = host;
    this.ids = ids;
  }

  /** Fires every entry due at {@code nowMs}. */
  public void fireDue(long nowMs) {
    if (crons.nextFireMs() > nowMs) {
      return;
    }
    for (CronGroup group : crons.groups()) {
      if (group.fireDue(nowMs, (template, atMs) -> fire(group, template, atMs, nowMs))) {
        host.writeFired(new Mutation.PutCronGroup(group.name(), CronGroupCodec.encode(group)));
      }
    }
    crons.scheduleChanged();
  }

  /** Enqueues one fire; on failure the entry still advances, so it cannot refire every turn. */
  private boolean fire(CronGroup group, JobTemplate template, long occurrenceMs, long nowMs) {
    try {
      host.enqueue(template.toNewJob(ids.next(nowMs), occurrenceMs), nowMs);
      return true;
    } catch (SluiceException e) {
      LOG.warn("cron group '{}' could not enqueue its {} job: {}", group.name(), template.type(),
          e.getMessage());
      return false;
    } catch (RuntimeException e) {
      LOG.error("cron group '{}' failed to enqueue its {} job", group.name(), template.type(), e);
      return false;
    }
  }
}
