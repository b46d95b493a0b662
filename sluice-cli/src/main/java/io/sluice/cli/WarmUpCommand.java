package io.sluice.cli;

import io.sluice.engine.EngineConfig;
import java.time.Clock;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice warm-up} (hidden): runs the start-up warm-up alone and exits. {@code bin/sluice}
 * runs it once after each build to record the classes a server loads into a class-data archive,
 * which every later start maps instead of loading and verifying them from the jar.
 */
@Command(name = "warm-up", hidden = true, mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Run the start-up warm-up through throwaway servers, then exit.")
final class WarmUpCommand implements Callable<Integer> {
  @Option(names = "--jobs", defaultValue = "3000", description = "Jobs to run through it.")
  int jobs;

  @Override
  public Integer call() {
    LoggingSetup.configure("compact", "warn", null, Clock.systemUTC());
    WarmUp.run(EngineConfig.defaults(), jobs, () -> false);
    return 0;
  }
}
