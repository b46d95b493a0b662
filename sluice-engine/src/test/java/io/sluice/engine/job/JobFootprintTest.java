package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.GraphLayout;

/**
 * Pins the heap a held job takes, which the collector copies and promotes for every job of an
 * enqueue burst (docs/decisions.md, "The fields most jobs never set").
 */
class JobFootprintTest {
  @Test
  void aJobObjectStaysWithinEightyEightBytes() {
    // Sizes hold with compressed references, as on any heap below 32 GiB.
    assumeTrue(compressedReferences(), "compressed references are off");
    // 112 bytes before the split.
    assertThat(ClassLayout.parseClass(Job.class).instanceSize()).isLessThanOrEqualTo(88);
  }

  @Test
  void aPlainJobHoldsNoObjectForItsDefaultsAsEnqueuedCompletedOrRetained() {
    Job job = new Job(new JobId(1, 2), "t", "q", 0, JobStatus.READY, 100);
    // What an enqueue sets on every job, a plain one's options being absent.
    job.retryLimit(null);
    job.backoff(null);
    job.retention(null);
    job.retention(new RetentionPolicy(null, null));
    job.unique(null);
    job.batch(null);
    job.errorRecords(0);
    job.failedAtMs(Job.NONE);
    // Every completion sets this, also of a job forgotten at once; a kept job also gets a purge
    // time. An object made then, referenced from a job already promoted, would be promoted too.
    job.completedAtMs(5);
    job.purgeAtMs(6);

    assertThat(uncommonHeld(job)).isFalse();
  }

  @Test
  void aPlainJobRecoveredFromItsSnapshotHoldsNoSuchObject() {
    Job job = new Job(new JobId(1, 2), "t", "q", 0, JobStatus.COMPLETED, 100);
    job.completedAtMs(5);
    job.purgeAtMs(6);

    Job recovered = Job.fromSnapshot(job.snapshot(false), "t", "q");

    assertThat(uncommonHeld(recovered)).isFalse();
  }

  @Test
  void aJobWithAnUncommonFieldHoldsOneMoreObject() {
    Job job = new Job(new JobId(1, 2), "t", "q", 0, JobStatus.READY, 100);
    job.failedAtMs(5);

    assertThat(uncommonHeld(job)).isTrue();
  }

  private static boolean uncommonHeld(Job job) {
    return GraphLayout.parseInstance(job).getClasses().stream()
        .anyMatch(type -> type.getEnclosingClass() == Job.class);
  }

  private static boolean compressedReferences() {
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    return Boolean.parseBoolean(vm.getVMOption("UseCompressedOops").getValue());
  }
}
