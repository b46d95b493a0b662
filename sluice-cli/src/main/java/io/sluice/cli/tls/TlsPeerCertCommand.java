package io.sluice.cli.tls;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice tls peer-cert}: a cluster node's certificate for its replication channel, signed
 * by the CA, good both to serve peers and to connect to them (docs/cluster.md).
 */
@Command(name = "peer-cert",
    description = "Create a cluster node's certificate: peer-<name>-cert.pem and"
        + " peer-<name>-key.pem.")
final class TlsPeerCertCommand implements Callable<Integer> {
  @Mixin OutputOptions output;
  @Mixin AuthorityOptions authority;

  @Option(names = "--name", paramLabel = "<name>", required = true,
      description = "Node id: the certificate's common name and the files' prefix.")
  String name;

  @Option(names = "--san", paramLabel = "<name>", required = true, split = ",",
      description = "DNS name or IP address the node's peers reach it at (its host in --peers);"
          + " repeatable.")
  List<String> sans;

  @Option(names = "--days", paramLabel = "<days>", defaultValue = "365",
      description = "Validity in days (default: ${DEFAULT-VALUE}).")
  String days;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    String node = TlsOptionValues.clientName(name, "--name");
    SubjectAltNames altNames = SubjectAltNames.parse(sans);
    int validDays = TlsOptionValues.days(days, "--days");
    CertifiedKey ca = authority.load(output.directory());
    Instant now = Instant.now();
    output.files(spec.commandLine().getOut()).writePair(TlsFileNames.peerCert(node),
        TlsFileNames.peerKey(node),
        () -> new CertificateIssuer().peer(ca, node, altNames, validDays, now));
    return 0;
  }
}
