package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.ApiConfig;
import io.sluice.cli.SluiceServer;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.store.rocks.StoreConfig;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The java-worker workload's drain against a real server in this JVM. */
class JavaWorkerDrainTest {

  @Test
  void theJavaWorkerDrainsEveryJobOnceAndLeavesNothingUnfinished(@TempDir Path dir) {
    SluiceServer server = SluiceServer.start(new StoreConfig(dir.resolve("data"), 64L << 20),
        EngineConfig.defaults(),
        new ApiConfig("127.0.0.1", 0, true, "127.0.0.1", 0, 200, 2, null, null),
        new EngineLoop.CommitModes(false, false), Clock.systemUTC());
    try (ClientKit kit = new ClientKit(2)) {
      BenchOptions opt = BenchOptions.parse(new String[] {"--url", "http://127.0.0.1:" + server.port(),
          "--workload", "java-worker", "--jobs", "3000", "--batch", "500", "--lanes", "2", "--workers", "2",
          "--prefetch", "8", "--phase-timeout", "60"});
      Endpoint endpoint = Endpoint.parse(opt.url());

      JavaWorkerDrain.Result first = new JavaWorkerDrain(opt, kit, endpoint).run("0000beef");
      JavaWorkerDrain.Result second = new JavaWorkerDrain(opt, kit, endpoint).run("0000cafe");

      for (JavaWorkerDrain.Result r : new JavaWorkerDrain.Result[] {first, second}) {
        assertThat(r.received()).isEqualTo(3000);
        assertThat(r.missing()).isZero();
        assertThat(r.duplicates()).isZero();
        assertThat(r.strays()).isZero();
        assertThat(r.primedBeforeGo()).isTrue();
        assertThat(r.drainNanos()).isPositive();
        assertThat(r.ok()).isTrue();
      }
      assertThat(first.toMap()).containsEntry("received", 3000L).containsKey("drain_jobs_per_s");
    } finally {
      server.close();
    }
  }
}
