package io.sluice.client;

import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.Settlement;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one job's handler and reports the outcome: a batched ack, an ack settling the costs the
 * handler reported, or a failure report.
 */
final class JobRunner {
  private static final Logger LOG = LoggerFactory.getLogger(JobRunner.class);

  private final HandlerRegistry handlers;
  private final AckBatcher acks;
  private final JobsApi jobs;
  private final BooleanSupplier abandoned;

  /**
   * @param abandoned true once shutdown gave up waiting for handlers: their jobs are left for the
   *     server to requeue, so an interrupted handler's exception is not reported as a failure
   */
  JobRunner(HandlerRegistry handlers, AckBatcher acks, JobsApi jobs, BooleanSupplier abandoned) {
    this.handlers = handlers;
    this.acks = acks;
    this.jobs = jobs;
    this.abandoned = abandoned;
  }

  /** Never throws; {@code settled} runs once the outcome has reached the server (or was lost). */
  void run(Job job, Runnable settled) {
    long startNanos = System.nanoTime();
    List<Settlement> costs;
    try {
      costs = handlers.handle(job);
    } catch (Throwable error) {
      try {
        if (!abandoned.getAsBoolean()) {
          reportFailure(job, error);
        }
      } finally {
        settled.run();
      }
      if (error instanceof VirtualMachineError fatal) {
        throw fatal;
      }
      return;
    }
    // The job's slot is free as soon as it is done: the server sends nothing new for it before
    // the ack reaches it, so waiting for the ack's answer too would only add a round trip.
    settled.run();
    if (costs == null || costs.isEmpty()) {
      acks.add(job.id(), System.nanoTime() - startNanos);
    } else {
      ackSettling(job, costs);
    }
  }

  /** Acknowledges at once: the ack batches carry ids only. */
  private void ackSettling(Job job, List<Settlement> costs) {
    try {
      jobs.ack(job.id(), costs.toArray(Settlement[]::new));
    } catch (SluiceException e) {
      // As for a failure report: a job whose stream dropped was requeued and will run again.
      LOG.warn("could not acknowledge job {} ({}) with its costs: {}", job.id(), job.type(),
          e.getMessage());
    }
  }

  private void reportFailure(Job job, Throwable error) {
    try {
      jobs.fail(job.id(), report(error));
    } catch (SluiceException e) {
      // Not fatal: a job whose stream dropped was requeued anyway and will run again.
      LOG.warn("could not report failure of job {} ({}): {}", job.id(), job.type(),
          e.getMessage());
    }
  }

  static FailureReport report(Throwable error) {
    if (error instanceof KillJobException || error instanceof RetryJobException
        || error instanceof ThrottledException) {
      // The handler's message explains the decision; the cause, if any, is what went wrong.
      Throwable cause = error.getCause() != null ? error.getCause() : error;
      FailureReport detail = FailureReport.of(cause);
      FailureReport report = new FailureReport(String.valueOf(error.getMessage()),
          detail.errorType(), detail.backtrace(), null, null, null);
      if (error instanceof ThrottledException throttled) {
        return report.throttling(throttled.budget(), throttled.partition(),
            throttled.retryAfter());
      }
      return error instanceof RetryJobException retry
          ? report.retryingAt(retry.retryAt())
          : report.killed();
    }
    return FailureReport.of(error);
  }
}
