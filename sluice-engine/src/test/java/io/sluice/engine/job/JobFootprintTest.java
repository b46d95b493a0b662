package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.GraphLayout;

/**
 * Pins the heap a held job takes, which the collector copies and promotes for every job of an
 * enqueue burst (docs/decisions.md, "The fields most jobs never set").
 */
class JobFootprintTest {
  @Test
  void aJobObjectStaysWithinEightyBytes() {
    // With compressed references, as on any heap below 32 GiB: 112 bytes before the split.
    assertThat(ClassLayout.parseClass(Job.class).instanceSize()).isLessThanOrEqualTo(80);
  }

  @Test
  void aPlainJobHoldsNoObjectForItsDefaultsEvenOnceCompleted() {
    Job job = new Job(new JobId(1, 2), "t", "q", 0, JobStatus.READY, 100);
    job.retryLimit(null);
    job.retention(new RetentionPolicy(null, null));
    job.purgeAtMs(Job.NONE);
    job.errorRecords(0);
    // Every completion sets it, also of a job forgotten at once: an object made then, referenced
    // from a job already promoted, would be promoted in turn.
    job.completedAtMs(5);

    assertThat(GraphLayout.parseInstance(job).getClasses())
        .noneMatch(type -> type.getEnclosingClass() == Job.class);
  }

  @Test
  void aJobWithAnUncommonFieldHoldsOneMoreObject() {
    Job job = new Job(new JobId(1, 2), "t", "q", 0, JobStatus.READY, 100);
    job.failedAtMs(5);

    assertThat(GraphLayout.parseInstance(job).getClasses())
        .anyMatch(type -> type.getEnclosingClass() == Job.class);
  }
}
