package io.sluice.cli;

import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sluice compact}: asks a running server for a full storage compaction (CLI.md §10.3). */
@Command(name = "compact", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Ask a running server to run a full storage compaction and wait for it.")
final class CompactCommand implements Callable<Integer> {
  @Mixin AdminClientOptions admin;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    HttpClient http = admin.httpClient();
    out.println("Requesting compaction from " + admin.baseUrl() + "...");
    out.flush();
    HttpResponse<String> response = admin.send(http, admin.post("/compact"),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 204) {
      throw new OperatorException(response.body().strip() + " (HTTP " + response.statusCode()
          + ")");
    }
    out.println("Compaction complete.");
    return 0;
  }
}
