package io.sluice.cli.tls;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice tls server-cert}: {@code server-cert.pem} and its key, signed by the CA. */
@Command(name = "server-cert",
    description = "Create a server certificate: server-cert.pem and server-key.pem.")
final class TlsServerCertCommand implements Callable<Integer> {
  static final String DEFAULT_COMMON_NAME = "Sluice Server";

  @Mixin OutputOptions output;
  @Mixin AuthorityOptions authority;

  @Option(names = "--san", paramLabel = "<name>", defaultValue = "localhost", split = ",",
      description = "DNS name or IP address the server answers to; repeatable"
          + " (default: ${DEFAULT-VALUE}).")
  List<String> sans;

  @Option(names = "--days", paramLabel = "<days>", defaultValue = "365",
      description = "Validity in days (default: ${DEFAULT-VALUE}).")
  String days;

  @Option(names = "--cn", paramLabel = "<name>", defaultValue = DEFAULT_COMMON_NAME,
      description = "Common name (default: ${DEFAULT-VALUE}).")
  String commonName;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    SubjectAltNames altNames = SubjectAltNames.parse(sans);
    int validDays = TlsOptionValues.days(days, "--days");
    String name = TlsOptionValues.commonName(commonName, "--cn");
    CertifiedKey ca = authority.load(output.directory());
    Instant now = Instant.now();
    output.files(spec.commandLine().getOut()).writePair(TlsFileNames.SERVER_CERT,
        TlsFileNames.SERVER_KEY,
        () -> new CertificateIssuer().server(ca, name, altNames, validDays, now));
    return 0;
  }
}
