package io.sluice.api.dashboard;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.HttpError;
import io.sluice.api.http.Router;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The web dashboard (X8) on the admin listener: {@code GET /} is the page, {@code /assets/…} its
 * modules and style sheet, {@code /assets/uplot/…} the vendored chart library from its webjar.
 * Everything comes from the class path, so the browser asks nothing of the internet. The pages
 * read the public API's handlers, which the admin listener also serves under
 * {@link #API_PREFIX}, and the live feed at {@code /events}.
 */
public final class Dashboard {
  public static final String API_PREFIX = "/api";
  private static final String OWN_FILES = "io/sluice/api/dashboard/";
  private static final String UPLOT_POM =
      "META-INF/maven/org.webjars.npm/uplot/pom.properties";
  /** The only chart files the page loads; the webjar holds other builds of the same code. */
  private static final Set<String> UPLOT_FILES = Set.of("uPlot.esm.js", "uPlot.min.css");
  /** Asset names are flat and plain, so a request can never name a file outside the folder. */
  private static final Pattern ASSET_NAME = Pattern.compile("[a-z0-9-]+\\.(js|css)");
  private static final Map<String, String> MEDIA_TYPES = Map.of(
      "html", "text/html; charset=utf-8",
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8");
  /**
   * Scripts, styles and the feed only from this listener. Inline styles are allowed because the
   * chart library positions its parts with them.
   */
  private static final String CONTENT_POLICY = "default-src 'self'; "
      + "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

  private final String uplotDir;
  /** Resource path → its bytes; assets are read once, on first request. */
  private final Map<String, Buffer> loaded = new ConcurrentHashMap<>();

  public Dashboard() {
    this.uplotDir = "META-INF/resources/webjars/uplot/" + uplotVersion() + "/dist/";
  }

  public void register(Router router) {
    router
        .add(HttpMethod.GET, "/", (ex, p) -> serve(ex, OWN_FILES + "index.html"))
        .add(HttpMethod.GET, "/assets/{file}", (ex, p) -> ownAsset(ex, p.get(0)))
        .add(HttpMethod.GET, "/assets/uplot/{file}", (ex, p) -> chartAsset(ex, p.get(0)));
  }

  private void ownAsset(Exchange ex, String file) {
    if (!ASSET_NAME.matcher(file).matches()) {
      ex.fail(HttpError.notFound());
      return;
    }
    serve(ex, OWN_FILES + file);
  }

  private void chartAsset(Exchange ex, String file) {
    if (!UPLOT_FILES.contains(file)) {
      ex.fail(HttpError.notFound());
      return;
    }
    serve(ex, uplotDir + file);
  }

  private void serve(Exchange ex, String resource) {
    ex.query(Set.of());
    Buffer body = loaded.computeIfAbsent(resource, Dashboard::read);
    if (body == null) {
      ex.fail(HttpError.notFound());
      return;
    }
    HttpServerResponse response = ex.request().response();
    if (response.ended() || response.closed()) {
      return;
    }
    String extension = resource.substring(resource.lastIndexOf('.') + 1);
    response.putHeader("Content-Type", MEDIA_TYPES.get(extension))
        .putHeader("Content-Security-Policy", CONTENT_POLICY)
        .putHeader("X-Content-Type-Options", "nosniff")
        // Assets change with the jar; revalidating costs a loopback round trip, not a download.
        .putHeader("Cache-Control", "no-cache")
        .end(body);
  }

  /** The resource's bytes, or null (not cached) when the jar has no such file. */
  private static Buffer read(String resource) {
    try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(resource)) {
      return in == null ? null : Buffer.buffer(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  /** The vendored uPlot's version, read from its webjar so the pom alone pins it. */
  private static String uplotVersion() {
    try (InputStream in = Dashboard.class.getClassLoader().getResourceAsStream(UPLOT_POM)) {
      if (in == null) {
        throw new IllegalStateException("the uPlot webjar is missing from the class path");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
