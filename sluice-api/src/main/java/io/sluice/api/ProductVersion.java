package io.sluice.api;

/**
 * The product's version (what {@code sluice --version} prints), kept here so the server can name
 * it to admin clients; the API level is {@link ApiServer#API_VERSION}.
 */
public final class ProductVersion {
  public static final String VERSION = "0.1.0";

  private ProductVersion() {}
}
