package io.sluice.engine.replay;

import io.sluice.engine.AckedIds;
import io.sluice.engine.Engine;
import io.sluice.engine.SluiceException;
import io.sluice.engine.Turn;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.cron.GroupPatch;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.replay.Commands.Command;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.TreeSet;

/**
 * The clients of a replay: they send the script's commands as the API would, hold take streams
 * that write down what they are handed, and write down every answer or refusal. Picks in the
 * script are read against what a client would know: jobs it created or was handed, and jobs the
 * loop saw committed (cron fires).
 *
 * <p>Used on the test thread, between and inside engine turns.
 */
final class ReplayClient {
  private final Engine engine;
  /** The generator the engine was given too, as the API shares it with cron fires. */
  private final JobIdGenerator ids;
  private final List<String> transcript;
  private final Coverage coverage = new Coverage();
  private long now;
  /** Every job id the script could name, in the order first seen. */
  private final LinkedHashSet<JobId> known = new LinkedHashSet<>();
  /** Jobs delivered and not yet acked or failed by the script, oldest delivery first. */
  private final LinkedHashSet<JobId> held = new LinkedHashSet<>();
  private final List<Stream> open = new ArrayList<>();
  private final List<Stream> closed = new ArrayList<>();
  /** Ids the script gave its requests: a new job with another id was enqueued by a cron fire. */
  private final LinkedHashSet<JobId> requested = new LinkedHashSet<>();

  /** How often the script reached the engine's less common paths, for the property's report. */
  static final class Coverage {
    int deliveries;
    int folds;
    int duplicates;
    int cronFires;
    int refusals;
  }

  ReplayClient(Engine engine, JobIdGenerator ids, List<String> transcript) {
    this.engine = engine;
    this.ids = ids;
    this.transcript = transcript;
  }

  Coverage coverage() {
    return coverage;
  }

  /** Sends one command at {@code nowMs}, inside the current turn. */
  void send(Command command, long nowMs) {
    now = nowMs;
    apply(command);
  }

  /** Ends every open stream at {@code nowMs}, inside the current turn. */
  void closeEveryStream(long nowMs) {
    now = nowMs;
    for (Stream stream : List.copyOf(open)) {
      close(stream);
    }
  }

  /** Writes down a turn's mutations and learns its new jobs, once it is committed. */
  void committed(Turn turn) {
    for (Mutation mutation : turn.mutations()) {
      log("  write " + Canonical.render(mutation));
    }
    for (Job job : turn.newJobs()) {
      known.add(job.id());
      if (!requested.contains(job.id())) {
        coverage.cronFires++;
      }
    }
  }

  // ---- commands ------------------------------------------------------------------------------

  private void apply(Command command) {
    if (command instanceof Commands.Enqueue enqueue && !enqueue.bulk()) {
      // Separate single requests that the loop happens to apply in one turn.
      for (Commands.JobDraw job : enqueue.jobs()) {
        answer("enqueue", () -> enqueue(List.of(job), false));
      }
      return;
    }
    answer(command.getClass().getSimpleName(), () -> respond(command));
  }

  /**
   * Runs a command and writes down its answer, or its refusal (a {@link SluiceException}, which
   * the API turns into a 4xx); any other exception is an engine fault and ends the run.
   */
  private void answer(String what, Call call) {
    Object answer;
    try {
      answer = call.run();
    } catch (SluiceException refusal) {
      answer = refusal;
      coverage.refusals++;
    }
    log("  " + what + " -> " + Canonical.render(answer));
  }

  private Object respond(Command command) {
    if (command instanceof Commands.Enqueue enqueue) {
      return enqueue(enqueue.jobs(), true);
    } else if (command instanceof Commands.OpenStream stream) {
      return openStream(stream);
    } else if (command instanceof Commands.CloseStream stream) {
      return closeStream(stream);
    } else if (command instanceof Commands.Written written) {
      List<Stream> paced = open.stream().filter(s -> s.paced).toList();
      if (paced.isEmpty()) {
        return "no paced stream";
      }
      Stream stream = paced.get(written.pick() % paced.size());
      engine.sessionWritten(stream.session);
      return "s" + stream.session.id();
    } else if (command instanceof Commands.Ack ack) {
      JobId id = ack.stale() ? anyJob(ack.pick()) : heldJob(ack.pick());
      engine.complete(id, now);
      held.remove(id);
      return id;
    } else if (command instanceof Commands.AckAll ackAll) {
      return ackAll(ackAll);
    } else if (command instanceof Commands.Fail fail) {
      return fail(fail);
    } else if (command instanceof Commands.Patch patch) {
      return engine.patch(anyJob(patch.pick()), Requests.patch(patch.patch(), now), now);
    } else if (command instanceof Commands.PatchWhere patch) {
      return engine.patchWhere(Requests.inQueue(patch.queue(), 0), null,
          Requests.patch(patch.patch(), now), now);
    } else if (command instanceof Commands.Delete delete) {
      JobId id = anyJob(delete.pick());
      engine.delete(id, now);
      return id;
    } else if (command instanceof Commands.DeleteWhere delete) {
      return engine.deleteWhere(Requests.inQueue(delete.queue(), delete.statusClass()), null,
          now);
    } else if (command instanceof Commands.Rebind rebind) {
      return engine.changeBindings(anyJob(rebind.pick()), Requests.bindingChange(rebind.change()),
          now);
    } else if (command instanceof Commands.RebindWhere rebind) {
      return engine.changeBindingsWhere(Requests.inQueue(rebind.queue(), 0),
          Requests.bindingChange(rebind.change()), now);
    }
    return administer(command);
  }

  private Object administer(Command command) {
    if (command instanceof Commands.PutBudget put) {
      return engine.budgetAdmin().put(Requests.budget(put.key()), Requests.policy(put.policy()),
          now);
    } else if (command instanceof Commands.CreateBudget create) {
      return engine.budgetAdmin().create(Requests.budget(create.key()),
          Requests.policy(create.policy()), now);
    } else if (command instanceof Commands.PatchBudget patch) {
      return engine.budgetAdmin().patch(Requests.budget(patch.key()), new PolicyPatch(
          patch.allocation(), patch.type(), patch.durationMs(), patch.burst(),
          patch.clearBurst()), now);
    } else if (command instanceof Commands.DeleteBudget delete) {
      engine.budgetAdmin().delete(Requests.budget(delete.key()));
      return "deleted";
    } else if (command instanceof Commands.PutCronGroup put) {
      return engine.crons().putGroup(Requests.cronGroup(put.group()),
          Requests.cronGroupSpec(put), now);
    } else if (command instanceof Commands.PauseCronGroup pause) {
      return engine.crons().patchGroup(Requests.cronGroup(pause.group()),
          new GroupPatch(pause.paused(), false, null), now);
    } else if (command instanceof Commands.DeleteCronGroup delete) {
      engine.crons().deleteGroup(Requests.cronGroup(delete.group()));
      return "deleted";
    } else if (command instanceof Commands.Reset) {
      engine.reset(now);
      return "reset";
    }
    throw new IllegalArgumentException("unknown command " + command);
  }

  private List<Enqueued> enqueue(List<Commands.JobDraw> draws, boolean bulk) {
    List<NewJob> requests = new ArrayList<>();
    for (Commands.JobDraw draw : draws) {
      NewJob request = Requests.newJob(draw, ids.next(now), now);
      requested.add(request.id());
      requests.add(request);
    }
    List<Enqueued> answers = engine.enqueueAll(requests, bulk, now);
    for (Enqueued answer : answers) {
      known.add(answer.job().id());
      coverage.folds += answer.folded() ? 1 : 0;
      coverage.duplicates += answer.duplicate() ? 1 : 0;
    }
    return answers;
  }

  private String openStream(Commands.OpenStream draw) {
    TreeSet<String> queues = null;
    if (draw.queueMask() != 0) {
      queues = new TreeSet<>();
      for (int i = 0; i < Commands.QUEUES; i++) {
        if ((draw.queueMask() & (1 << i)) != 0) {
          queues.add(Requests.queue(i));
        }
      }
    }
    Stream stream = new Stream(draw.paced());
    stream.session = engine.openSession(queues, draw.prefetch(), stream);
    open.add(stream);
    return "s" + stream.session.id();
  }

  private String closeStream(Commands.CloseStream draw) {
    if (draw.again() && !closed.isEmpty()) {
      Stream stream = closed.get(draw.pick() % closed.size());
      engine.closeSession(stream.session, now);
      return "s" + stream.session.id() + " again";
    }
    if (open.isEmpty()) {
      return "no open stream";
    }
    Stream stream = open.get(draw.pick() % open.size());
    close(stream);
    return "s" + stream.session.id();
  }

  private void close(Stream stream) {
    engine.closeSession(stream.session, now);
    open.remove(stream);
    closed.add(stream);
  }

  private List<String> ackAll(Commands.AckAll draw) {
    List<String> requested = new ArrayList<>();
    for (int pick : draw.picks()) {
      requested.add(heldJob(pick).toString());
    }
    if (draw.strangers()) {
      requested.add("not-a-job-id");
      requested.add(stranger(draw.picks().get(0)).toString());
    }
    List<String> notFound = engine.completeAll(AckedIds.of(requested), now);
    for (String id : requested) {
      if (!notFound.contains(id)) {
        held.remove(JobId.parseOrNull(id));
      }
    }
    return notFound;
  }

  private JobSnapshot fail(Commands.Fail draw) {
    JobId id = heldJob(draw.pick());
    Long retryAtMs = switch (draw.kind()) {
      case RETRY_AT_PAST -> now - draw.delayMs() - 1;
      case RETRY_AT_LATER -> now + draw.delayMs() + 1;
      case BACKOFF, KILL -> null;
    };
    JobSnapshot failed = engine.fail(id, new FailureReport("boom " + draw.delayMs(),
        draw.kind() == Commands.FailKind.KILL ? "Fatal" : null, null, retryAtMs,
        draw.kind() == Commands.FailKind.KILL, draw.jitter()), now);
    held.remove(id);
    return failed;
  }

  /** A job delivered and not yet acked or failed by the script, else any known job. */
  private JobId heldJob(int pick) {
    return held.isEmpty() ? anyJob(pick) : List.copyOf(held).get(pick % held.size());
  }

  /** Any known job; one pick in sixteen (or when none is known) an id no job ever had. */
  private JobId anyJob(int pick) {
    if (known.isEmpty() || pick % 16 == 15) {
      return stranger(pick);
    }
    return List.copyOf(known).get(pick % known.size());
  }

  private static JobId stranger(int pick) {
    return new JobId(0, pick + 1);
  }

  private void log(String line) {
    transcript.add(line);
  }

  /** A command as the loop applies it: it answers, or the API refuses it. */
  @FunctionalInterface
  private interface Call {
    Object run();
  }

  /** A take stream that writes down what it is handed. */
  private final class Stream implements JobSink {
    private final boolean paced;
    private WorkerSession session;

    Stream(boolean paced) {
      this.paced = paced;
    }

    @Override
    public boolean pacedByWrites() {
      return paced;
    }

    @Override
    public void deliver(List<JobSnapshot> jobs) {
      log("  deliver s" + session.id() + " " + Canonical.render(jobs));
      coverage.deliveries += jobs.size();
      for (JobSnapshot job : jobs) {
        known.add(job.id());
        held.remove(job.id());
        held.add(job.id());
      }
    }
  }
}
