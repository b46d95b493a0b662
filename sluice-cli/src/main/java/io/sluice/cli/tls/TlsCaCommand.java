package io.sluice.cli.tls;

import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice tls ca}: a new self-signed CA, {@code ca-cert.pem} and {@code ca-key.pem}. */
@Command(name = "ca",
    description = "Create a CA: ca-cert.pem and ca-key.pem.")
final class TlsCaCommand implements Callable<Integer> {
  static final String DEFAULT_COMMON_NAME = "Sluice CA";

  @Mixin OutputOptions output;

  @Option(names = "--days", paramLabel = "<days>", defaultValue = "3650",
      description = "Validity of the CA certificate in days (default: ${DEFAULT-VALUE}).")
  String days;

  @Option(names = "--cn", paramLabel = "<name>", defaultValue = DEFAULT_COMMON_NAME,
      description = "Common name of the CA (default: ${DEFAULT-VALUE}).")
  String commonName;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    int validDays = TlsOptionValues.days(days, "--days");
    String name = TlsOptionValues.commonName(commonName, "--cn");
    Instant now = Instant.now();
    output.files(spec.commandLine().getOut()).writePair(TlsFileNames.CA_CERT, TlsFileNames.CA_KEY,
        () -> new CertificateIssuer().authority(name, validDays, now));
    return 0;
  }
}
