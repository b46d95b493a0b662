package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** OrderedJobs must behave exactly like a TreeSet under the same order, whatever the sequence. */
class OrderedJobsTest {
  private static final Comparator<Job> ORDER =
      Comparator.<Job>comparingInt(Job::priority).thenComparing(Job::id);

  private record Op(int kind, int priority, long id) {}

  @Property(tries = 300)
  void agreesWithATreeSet(@ForAll("ops") List<Op> ops) {
    OrderedJobs jobs = new OrderedJobs(ORDER);
    TreeSet<Job> model = new TreeSet<>(ORDER);
    for (Op op : ops) {
      Job job = job(op.priority(), op.id());
      switch (op.kind()) {
        case 0, 1, 2 -> assertThat(jobs.add(job)).as("add %s", op).isEqualTo(model.add(job));
        case 3 -> assertThat(jobs.remove(job)).as("remove %s", op).isEqualTo(model.remove(job));
        case 4 -> {
          Job first = model.isEmpty() ? null : model.first();
          assertThat(jobs.remove(first == null ? job : first))
              .isEqualTo(first == null ? model.remove(job) : model.remove(first));
        }
        default -> assertThat(jobs.higher(job)).as("higher %s", op).isEqualTo(model.higher(job));
      }
      assertThat(jobs.size()).isEqualTo(model.size());
      assertThat(jobs.isEmpty()).isEqualTo(model.isEmpty());
      assertThat(jobs.first()).isEqualTo(model.isEmpty() ? null : model.first());
    }
    assertThat(drain(jobs)).containsExactlyElementsOf(model);
  }

  @Provide
  Arbitrary<List<Op>> ops() {
    // Mostly increasing ids (as generated), some stale ones, a few priorities.
    Arbitrary<Op> op = Combinators.combine(
        Arbitraries.integers().between(0, 5),
        Arbitraries.integers().between(0, 2),
        Arbitraries.longs().between(0, 60)).as(Op::new);
    return op.list().ofMaxSize(200).map(OrderedJobsTest::mostlyIncreasing);
  }

  private static List<Op> mostlyIncreasing(List<Op> ops) {
    List<Op> shaped = new ArrayList<>(ops.size());
    long next = 0;
    for (Op op : ops) {
      boolean fresh = op.kind() <= 1;
      shaped.add(fresh ? new Op(op.kind(), op.priority() == 2 ? 0 : op.priority(), next++) : op);
    }
    return shaped;
  }

  @Test
  void keepsAppendingInOrderAndHandsOutFromTheFront() {
    OrderedJobs jobs = new OrderedJobs(ORDER);
    for (long id = 0; id < 10_000; id++) {
      assertThat(jobs.add(job(0, id))).isTrue();
    }
    assertThat(jobs.add(job(0, 42))).as("already there").isFalse();
    for (long id = 0; id < 10_000; id++) {
      assertThat(jobs.first().id()).isEqualTo(new JobId(0, id));
      assertThat(jobs.remove(job(0, id))).isTrue();
    }
    assertThat(jobs.isEmpty()).isTrue();
    assertThat(jobs.first()).isNull();
  }

  @Test
  void anEarlierJobGoesFirstAndAMiddleRemovalKeepsTheOrder() {
    OrderedJobs jobs = new OrderedJobs(ORDER);
    for (long id = 10; id < 20; id++) {
      jobs.add(job(1, id));
    }
    jobs.add(job(1, 3)); // a retry of an older job
    jobs.add(job(0, 30)); // a more urgent priority
    assertThat(jobs.remove(job(1, 15))).isTrue();
    assertThat(jobs.remove(job(1, 15))).isFalse();
    assertThat(drain(jobs)).extracting(Job::priority, j -> j.id().lo())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(0, 30L),
            org.assertj.core.groups.Tuple.tuple(1, 3L),
            org.assertj.core.groups.Tuple.tuple(1, 10L),
            org.assertj.core.groups.Tuple.tuple(1, 11L),
            org.assertj.core.groups.Tuple.tuple(1, 12L),
            org.assertj.core.groups.Tuple.tuple(1, 13L),
            org.assertj.core.groups.Tuple.tuple(1, 14L),
            org.assertj.core.groups.Tuple.tuple(1, 16L),
            org.assertj.core.groups.Tuple.tuple(1, 17L),
            org.assertj.core.groups.Tuple.tuple(1, 18L),
            org.assertj.core.groups.Tuple.tuple(1, 19L));
  }

  private static List<Job> drain(OrderedJobs jobs) {
    List<Job> out = new ArrayList<>();
    Job first;
    while ((first = jobs.first()) != null) {
      out.add(first);
      assertThat(jobs.remove(first)).isTrue();
    }
    return out;
  }

  private static Job job(int priority, long id) {
    return new Job(new JobId(0, id), "t", "q", priority, JobStatus.READY, 0);
  }
}
