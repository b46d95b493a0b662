package io.sluice.cli.tls;

import io.sluice.cli.OperatorException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.util.IPAddress;

/**
 * Turns {@code --san} values into a server certificate's subject alternative names: an IPv4 or
 * IPv6 literal becomes an iPAddress name, anything else must be a DNS name (a leading {@code *.}
 * wildcard allowed). Duplicates are dropped, the first occurrence keeping its place.
 *
 * <p>The commands hold this rather than BouncyCastle's {@code GeneralNames}: picocli reflects
 * over every command's methods, a lambda's included, whenever the CLI starts, and a BouncyCastle
 * type in one of their signatures made every invocation load and verify BouncyCastle's signed
 * jars (about 0.2 s).
 */
final class SubjectAltNames {
  private static final String LABEL = "[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?";
  private static final Pattern DNS_NAME =
      Pattern.compile("(?:\\*\\.)?" + LABEL + "(?:\\." + LABEL + ")*");
  private static final int MAX_DNS_NAME_LENGTH = 253;

  private final GeneralNames names;

  private SubjectAltNames(GeneralNames names) {
    this.names = names;
  }

  GeneralNames generalNames() {
    return names;
  }

  static SubjectAltNames parse(Collection<String> values) {
    List<GeneralName> names = new ArrayList<>();
    for (String value : new LinkedHashSet<>(values)) {
      names.add(parseOne(value));
    }
    if (names.isEmpty()) {
      throw new OperatorException("a server certificate needs at least one --san");
    }
    return new SubjectAltNames(new GeneralNames(names.toArray(new GeneralName[0])));
  }

  private static GeneralName parseOne(String value) {
    if (IPAddress.isValid(value)) {
      return new GeneralName(GeneralName.iPAddress, value);
    }
    if (value.length() <= MAX_DNS_NAME_LENGTH && DNS_NAME.matcher(value).matches()) {
      return new GeneralName(GeneralName.dNSName, value);
    }
    throw new OperatorException("invalid value for --san: '" + value
        + "' (expected a DNS name or an IP address)");
  }
}
