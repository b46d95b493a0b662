package io.sluice.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice backup}: downloads a consistent snapshot from a running server (CLI.md §10.1).
 * The archive is written beside {@code FILENAME} under a hidden temporary name and renamed once
 * complete and on disk, so a failed backup never leaves a truncated archive under that name.
 */
@Command(name = "backup", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Download a consistent snapshot of a running server's data (.tar.gz).")
final class BackupCommand implements Callable<Integer> {
  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

  @Mixin AdminClientOptions admin;

  @Parameters(paramLabel = "FILENAME", description = "Where to write the archive.")
  Path file;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path target = file.toAbsolutePath();
    if (Files.isDirectory(target)) {
      throw new OperatorException(file + " is a directory");
    }
    if (!Files.isDirectory(target.getParent())) {
      throw new OperatorException("cannot write " + file + ": " + target.getParent()
          + " is not a directory");
    }
    HttpClient http = admin.httpClient();
    out.println("Requesting backup from " + admin.baseUrl() + "...");
    out.flush();
    HttpResponse<InputStream> response = admin.send(http, admin.post("/backup"),
        HttpResponse.BodyHandlers.ofInputStream());
    long size;
    try (InputStream body = response.body()) {
      if (response.statusCode() != 200) {
        throw new OperatorException(new String(body.readAllBytes(), StandardCharsets.UTF_8).strip()
            + " (HTTP " + response.statusCode() + ")");
      }
      size = download(body, target);
    }
    out.println("Backup saved to " + file + " (" + humanSize(size) + ")");
    return 0;
  }

  private static long download(InputStream body, Path target) throws IOException {
    Path partial = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".",
        ".partial");
    boolean saved = false;
    try {
      long size;
      try (FileChannel channel = FileChannel.open(partial, StandardOpenOption.WRITE);
          OutputStream sink = Channels.newOutputStream(channel)) {
        size = body.transferTo(sink);
        channel.force(true);
      }
      Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
      saved = true;
      return size;
    } catch (IOException e) {
      throw new OperatorException("backup failed while downloading: "
          + (e.getMessage() != null ? e.getMessage() : e.toString()));
    } finally {
      if (!saved) {
        Files.deleteIfExists(partial);
      }
    }
  }

  /** {@code 512 B}, {@code 42.0 MiB}: binary units, one decimal. */
  static String humanSize(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    double value = bytes / 1024.0;
    int unit = 0;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }
}
