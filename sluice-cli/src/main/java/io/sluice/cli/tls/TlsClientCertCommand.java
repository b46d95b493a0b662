package io.sluice.cli.tls;

import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice tls client-cert}: a client certificate for mutual TLS, signed by the CA. */
@Command(name = "client-cert",
    description = "Create a client certificate: client-<name>-cert.pem and client-<name>-key.pem.")
final class TlsClientCertCommand implements Callable<Integer> {
  @Mixin OutputOptions output;
  @Mixin AuthorityOptions authority;

  @Option(names = "--name", paramLabel = "<name>", required = true,
      description = "Client name: the certificate's common name and the files' prefix.")
  String name;

  @Option(names = "--days", paramLabel = "<days>", defaultValue = "365",
      description = "Validity in days (default: ${DEFAULT-VALUE}).")
  String days;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String client = TlsOptionValues.clientName(name, "--name");
    int validDays = TlsOptionValues.days(days, "--days");
    CertifiedKey ca = authority.load(output.directory());
    Instant now = Instant.now();
    output.files(spec.commandLine().getOut()).writePair(TlsFileNames.clientCert(client),
        TlsFileNames.clientKey(client),
        () -> new CertificateIssuer().client(ca, client, validDays, now));
    return 0;
  }
}
