package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice tls init}: everything for mutual TLS in one go, a CA, a server certificate and any
 * client certificates. A CA already in the output directory is reused, even with {@code
 * --overwrite}, so that certificates it signed earlier stay valid; {@code sluice tls ca
 * --overwrite} replaces it.
 */
@Command(name = "init",
    description = "Create a CA (or reuse the one in the output directory), a server certificate"
        + " and client certificates.")
final class TlsInitCommand implements Callable<Integer> {
  @Mixin OutputOptions output;
  @Mixin AuthorityOptions authority;

  @Option(names = "--san", paramLabel = "<name>", defaultValue = "localhost", split = ",",
      description = "DNS name or IP address the server answers to; repeatable"
          + " (default: ${DEFAULT-VALUE}).")
  List<String> sans;

  @Option(names = "--days", paramLabel = "<days>", defaultValue = "365",
      description = "Validity of the server and client certificates in days"
          + " (default: ${DEFAULT-VALUE}).")
  String days;

  @Option(names = "--ca-days", paramLabel = "<days>", defaultValue = "3650",
      description = "Validity of a new CA certificate in days (default: ${DEFAULT-VALUE}).")
  String caDays;

  @Option(names = "--cn", paramLabel = "<name>", defaultValue = TlsCaCommand.DEFAULT_COMMON_NAME,
      description = "Common name of a new CA (default: ${DEFAULT-VALUE}).")
  String caCommonName;

  @Option(names = "--client", paramLabel = "<name>",
      description = "Also create a client certificate with this name; repeatable.")
  List<String> clients = new ArrayList<>();

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    // Every value is checked before the first file is written.
    SubjectAltNames altNames = SubjectAltNames.parse(sans);
    int leafDays = TlsOptionValues.days(days, "--days");
    int authorityDays = TlsOptionValues.days(caDays, "--ca-days");
    String authorityName = TlsOptionValues.commonName(caCommonName, "--cn");
    List<String> clientNames = new ArrayList<>();
    for (String client : new LinkedHashSet<>(clients)) {
      clientNames.add(TlsOptionValues.clientName(client, "--client"));
    }
    PrintWriter out = spec.commandLine().getOut();
    PemOutput files = output.files(out);
    Instant now = Instant.now();
    // Made here, not when picocli makes the command: verifying the issuer loads BouncyCastle.
    CertificateIssuer issuer = new CertificateIssuer();
    CertifiedKey ca = authority(issuer, files, out, authorityName, authorityDays, now);
    if (!files.writePair(TlsFileNames.SERVER_CERT, TlsFileNames.SERVER_KEY, () -> issuer.server(
        ca, TlsServerCertCommand.DEFAULT_COMMON_NAME, altNames, leafDays, now))) {
      warnIfNotSignedBy(ca, files.directory().resolve(TlsFileNames.SERVER_CERT), out);
    }
    for (String client : clientNames) {
      if (!files.writePair(TlsFileNames.clientCert(client), TlsFileNames.clientKey(client),
          () -> issuer.client(ca, client, leafDays, now))) {
        warnIfNotSignedBy(ca, files.directory().resolve(TlsFileNames.clientCert(client)), out);
      }
    }
    return 0;
  }

  /**
   * A certificate kept (not written) may belong to another CA (one replaced since): peers
   * trusting this CA would refuse it, so say so rather than leave a silent {@code skip:}.
   */
  private static void warnIfNotSignedBy(CertifiedKey ca, Path certificate, PrintWriter out) {
    if (!Files.isRegularFile(certificate)) {
      return;
    }
    try {
      PemFiles.readCertificates(certificate).get(0).verify(ca.certificate().getPublicKey());
    } catch (PemException | GeneralSecurityException e) {
      out.println("warning: " + certificate + " is not signed by this CA; --overwrite replaces"
          + " it");
    }
  }

  /** The CA given by option, else the one in the output directory, else a new one. */
  private CertifiedKey authority(CertificateIssuer issuer, PemOutput files, PrintWriter out,
      String commonName, int validDays, Instant now) {
    if (authority.given()) {
      return authority.load(files.directory());
    }
    Path certificate = files.directory().resolve(TlsFileNames.CA_CERT);
    Path key = files.directory().resolve(TlsFileNames.CA_KEY);
    boolean certificateExists = Files.exists(certificate);
    boolean keyExists = Files.exists(key);
    if (certificateExists && keyExists) {
      CertifiedKey existing = AuthorityOptions.read(certificate, key);
      out.println("CA already exists, reusing: " + certificate);
      return existing;
    }
    if (certificateExists || keyExists) {
      throw new OperatorException((certificateExists ? certificate : key) + " exists but "
          + (certificateExists ? key : certificate)
          + " does not (replace both with `sluice tls ca --overwrite`)");
    }
    CertifiedKey created = issuer.authority(commonName, validDays, now);
    files.writePair(TlsFileNames.CA_CERT, TlsFileNames.CA_KEY, () -> created);
    return created;
  }
}
