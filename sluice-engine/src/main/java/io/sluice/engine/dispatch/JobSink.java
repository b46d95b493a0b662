package io.sluice.engine.dispatch;

import io.sluice.engine.job.JobSnapshot;
import java.util.List;

/**
 * Where a take stream receives its jobs. Called on the engine thread; implementations hand the
 * jobs to their own thread and return at once.
 */
public interface JobSink {
  void deliver(List<JobSnapshot> jobs);
}
