package io.sluice.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends one request in the configured format and decodes the answer, turning error statuses into
 * {@link SluiceException}s.
 *
 * <p>In a cluster it follows the leader: a {@code 307}/{@code 308} is sent again, same method,
 * headers and body, to its {@code Location}, and a {@code 503} naming a leader to that leader;
 * either way later requests go straight there. A {@code 503} with a {@code Retry-After} and no
 * leader (an election) is retried after that delay, within {@code unavailableTimeout}. A node
 * that refuses the connection (nothing was sent) is passed over for the next seed URL. A node that
 * sends the client to a leader that refused it during the same request has not noticed yet that
 * its leader died: it is asked again after {@link #STALE_LEADER_PAUSE_MS}, like a node with no
 * leader, until it names a live one or {@code unavailableTimeout} has passed.
 */
final class HttpTransport {
  private static final Logger LOG = LoggerFactory.getLogger(HttpTransport.class);

  /** The most times one request is sent elsewhere (redirects and leaders named by a 503). */
  static final int MAX_HOPS = 5;

  /** The shortest wait between two tries after a 503, whatever its {@code Retry-After} says. */
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /**
   * The wait before asking again a node that named as leader one that refused the connection:
   * the nodes notice a dead leader within an election timeout (half a second to a second by
   * default), and then answer 503 with their own {@code Retry-After} until a new one serves.
   */
  static final long STALE_LEADER_PAUSE_MS = 250;

  /**
   * A complete response whose status has not been judged yet, with the two headers that can
   * send the client elsewhere ({@code Location}, {@code Retry-After}), null when absent.
   */
  record Reply(int status, String contentType, byte[] body, String location, String retryAfter) {
    Reply(int status, String contentType, byte[] body) {
      this(status, contentType, body, null, null);
    }

    boolean ok() {
      return status >= 200 && status < 300;
    }

    boolean redirect() {
      return (status == 307 || status == 308) && location != null;
    }
  }

  private final HttpClient http;
  /** The base URLs the client was built with, in order, without a trailing slash. */
  private final List<String> seeds;
  /** Where requests go now: a seed, or the leader a node sent the client to. */
  private final AtomicReference<String> base;
  private final Duration unavailableTimeout;
  private final Duration connectTimeout;
  private final SSLSocketFactory tls;
  private final WireFormat format;
  private final Duration requestTimeout;
  private final WireCodec codec;

  HttpTransport(HttpClient http, List<String> seeds, WireFormat format, Duration connectTimeout,
      Duration requestTimeout, Duration unavailableTimeout, WireCodec codec,
      SSLSocketFactory tls) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("no base URL");
    }
    this.http = http;
    this.seeds = List.copyOf(seeds);
    this.base = new AtomicReference<>(this.seeds.get(0));
    this.unavailableTimeout = unavailableTimeout;
    this.connectTimeout = connectTimeout;
    this.tls = tls;
    this.format = format;
    this.requestTimeout = requestTimeout;
    this.codec = codec;
  }

  WireCodec codec() {
    return codec;
  }

  WireFormat format() {
    return format;
  }

  /** Sends and decodes a successful answer into {@code type}; null {@code type} skips decoding. */
  <T> T call(String method, String pathAndQuery, Object body, JavaType type) {
    Reply reply = exchange(method, pathAndQuery, body);
    if (!reply.ok()) {
      throw failure(method, pathAndQuery, reply);
    }
    return type == null ? null : decode(method, pathAndQuery, reply, type);
  }

  <T> T call(String method, String pathAndQuery, Object body, Class<T> type) {
    return call(method, pathAndQuery, body, codec.json().constructType(type));
  }

  void call(String method, String pathAndQuery, Object body) {
    call(method, pathAndQuery, body, (JavaType) null);
  }

  /**
   * Sends without judging the status, for the few endpoints with a meaningful error body. Follows
   * the leader and waits out elections as the class comment says; the reply is the last one.
   */
  Reply exchange(String method, String pathAndQuery, Object body) {
    String what = method + " " + pathAndQuery;
    byte[] encoded = body == null ? null : codec.encode(format, body);
    long deadline = System.nanoTime() + unavailableTimeout.toNanos();
    String targetBase = base.get();
    URI target = URI.create(targetBase + pathAndQuery);
    // Nodes that refused a connection since this request last paused: one a node names as
    // leader is not followed again before a pause (a leader that died, and nodes that have not
    // noticed yet; or a node switching its listeners as it takes the lead, back soon).
    Set<String> refused = new HashSet<>();
    IOException refusal = null;
    int hops = 0;
    boolean hopped = false; // whether target is where the last hop sent the request
    while (true) {
      Reply reply;
      try {
        reply = reply(http.send(build(method, target, encoded),
            HttpResponse.BodyHandlers.ofByteArray()));
      } catch (ConnectException | HttpConnectTimeoutException e) {
        // No connection, so nothing was sent: another node may take it, whatever the method.
        refusal = e;
        refused.add(targetBase);
        if (hopped) {
          hops--; // the hop limit is for loops between nodes that answer
          hopped = false;
        }
        String next = nextSeed(targetBase, refused);
        if (next == null) {
          throw new ConnectionException(what, e);
        }
        LOG.info("{} unreachable ({}); trying {}", targetBase, e.toString(), next);
        base.compareAndSet(targetBase, next);
        targetBase = next;
        target = URI.create(next + pathAndQuery);
        continue;
      } catch (IOException e) {
        throw new ConnectionException(what, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ConnectionException(what, e);
      }
      if (reply.redirect()) {
        URI location = location(target, reply.location(), what);
        String leader = leaderBase(location, pathAndQuery);
        if (refused.contains(leader)) {
          targetBase = askAgain(targetBase, leader, refused, deadline, what, refusal);
          target = URI.create(targetBase + pathAndQuery);
          hopped = false;
          continue;
        }
        hops = hop(hops, what, reply, location.toString());
        hopped = true;
        targetBase = leader;
        adopt(targetBase);
        target = location;
        continue;
      }
      if (reply.status() == 503) {
        String leader = leader(reply, target, what);
        if (leader != null && refused.contains(leader)) {
          targetBase = askAgain(targetBase, leader, refused, deadline, what, refusal);
          target = URI.create(targetBase + pathAndQuery);
          hopped = false;
          continue;
        }
        if (leader != null && !leader.equals(targetBase)) {
          hops = hop(hops, what, reply, leader);
          hopped = true;
          adopt(leader);
          targetBase = leader;
          target = URI.create(leader + pathAndQuery);
          continue;
        }
        long waitNanos = retryAfterNanos(reply.retryAfter());
        if (waitNanos < 0 || System.nanoTime() + waitNanos > deadline) {
          return reply;
        }
        pause(waitNanos, what);
        refused.clear();
        targetBase = base.get(); // another request may have found the leader meanwhile
        target = URI.create(targetBase + pathAndQuery);
        hopped = false;
        continue;
      }
      return reply;
    }
  }

  /**
   * The node at {@code from} named as leader {@code stale}, which refused this request's
   * connection since its last pause: {@code from} has not noticed yet that its leader died (or
   * the leader is switching its listeners). Waits {@link #STALE_LEADER_PAUSE_MS}, forgets the
   * refusals (a node named again is tried again), and returns the seed to ask next: the one
   * after {@code from} that did not refuse, or {@code from} itself. Throws a
   * {@link ConnectionException} when that wait would pass {@code deadline} (nothing was sent to
   * any leader).
   */
  private String askAgain(String from, String stale, Set<String> refused, long deadline,
      String what, IOException refusal) {
    long waitNanos = TimeUnit.MILLISECONDS.toNanos(STALE_LEADER_PAUSE_MS);
    if (System.nanoTime() + waitNanos > deadline) {
      ConnectException cause = new ConnectException("the leader " + stale + " that " + from
          + " names refuses connections, and no live leader was named within "
          + unavailableTimeout.toMillis() + " ms");
      cause.initCause(refusal);
      throw new ConnectionException(what, cause);
    }
    LOG.info("{} names {} as leader, which refuses connections; asking again in {} ms", from,
        stale, STALE_LEADER_PAUSE_MS);
    pause(waitNanos, what);
    String next = nextSeed(from, refused);
    refused.clear();
    return next != null ? next : from;
  }

  private HttpRequest build(String method, URI target, byte[] body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(target)
        .header("Accept", format.mediaType())
        .timeout(requestTimeout);
    if (body == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", format.mediaType())
          .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
    }
    return request.build();
  }

  private static Reply reply(HttpResponse<byte[]> response) {
    return new Reply(response.statusCode(),
        response.headers().firstValue("Content-Type").orElse(null), response.body(),
        response.headers().firstValue("Location").orElse(null),
        response.headers().firstValue("Retry-After").orElse(null));
  }

  /** Where requests go now, without a trailing slash. */
  String baseUrl() {
    return base.get();
  }

  /**
   * The base URL a refusal by the node at {@code from} sends the client to: a redirect's
   * (whatever it is), or the leader a {@code 503}'s body names when that is another node; null
   * when the reply sends nowhere. Throws for a redirect that cannot be followed.
   */
  String leaderToFollow(Reply reply, String from, String pathAndQuery, String what) {
    if (reply.redirect()) {
      URI requested = URI.create(from + pathAndQuery);
      return leaderBase(location(requested, reply.location(), what), pathAndQuery);
    }
    if (reply.status() == 503) {
      // Parsed only here: every ack's answer passes through, and a URI per answer cost 7% of
      // the ack senders' time.
      String leader = leader(reply, URI.create(from + pathAndQuery), what);
      return leader != null && !leader.equals(from) ? leader : null;
    }
    return null;
  }

  /** Counts one more hop, throwing once there were {@link #MAX_HOPS}. */
  int hop(int hops, String what, Reply reply, String to) {
    if (hops >= MAX_HOPS) {
      throw new SluiceException(reply.status(), "gave up after " + MAX_HOPS
          + " redirects to the leader (a redirect loop, or leadership changing under way);"
          + " the last pointed to " + to, what);
    }
    return hops + 1;
  }

  /** From now on requests go to {@code leader} (a base URL). */
  void adopt(String leader) {
    String before = base.getAndSet(leader);
    if (!leader.equals(before)) {
      LOG.info("following the leader at {} (was {})", leader, before);
    }
  }

  /** The redirect's target, resolved against the request's; only http/https, never down to http. */
  private static URI location(URI requested, String location, String what) {
    URI resolved;
    try {
      resolved = requested.resolve(new URI(location.trim()));
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new SluiceException(307, "not following a redirect to a malformed Location: "
          + location, what);
    }
    checkTarget(requested, resolved, "redirect", what);
    return resolved;
  }

  private static void checkTarget(URI requested, URI target, String kind, String what) {
    String scheme = target.getScheme() == null ? "" : target.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || target.getHost() == null) {
      throw new SluiceException(307, "not following a " + kind + " to " + target
          + ": only http and https URLs are followed", what);
    }
    if ("https".equalsIgnoreCase(requested.getScheme()) && scheme.equals("http")) {
      throw new SluiceException(307, "not following a " + kind + " from https to " + target
          + ": it would send the request unencrypted", what);
    }
  }

  /**
   * The base URL of the node a redirect points to: the Location without the request's path and
   * query when it ends with them (a base URL with a path keeps it), else its scheme and authority.
   */
  private static String leaderBase(URI location, String pathAndQuery) {
    String full = location.toString();
    if (full.endsWith(pathAndQuery) && full.length() > pathAndQuery.length()) {
      String prefix = full.substring(0, full.length() - pathAndQuery.length());
      try {
        URI parsed = new URI(prefix);
        if (parsed.getHost() != null && parsed.getRawQuery() == null
            && parsed.getRawFragment() == null) {
          return stripSlash(prefix);
        }
      } catch (URISyntaxException e) {
        // fall back to the origin
      }
    }
    return location.getScheme() + "://" + location.getRawAuthority();
  }

  /** The {@code leader} a 503's JSON body names, checked like a redirect; null if none. */
  private String leader(Reply reply, URI requested, String what) {
    if (reply.body().length == 0) {
      return null;
    }
    JsonNode named;
    try {
      JsonNode body = codec.forContentType(reply.contentType()).readTree(reply.body());
      named = body == null ? null : body.get("leader");
    } catch (IOException e) {
      return null; // not an API error body (a proxy's page, say)
    }
    if (named == null || !named.isTextual() || named.textValue().isBlank()) {
      return null;
    }
    URI leader;
    try {
      leader = new URI(named.textValue().trim());
    } catch (URISyntaxException e) {
      return null;
    }
    checkTarget(requested, leader, "leader", what);
    return stripSlash(leader.toString());
  }

  /**
   * A {@code Retry-After} (seconds, or an HTTP date) in nanoseconds, at least
   * {@link #MIN_RETRY_NANOS}; -1 when absent or unreadable.
   */
  static long retryAfterNanos(String retryAfter) {
    if (retryAfter == null || retryAfter.isBlank()) {
      return -1;
    }
    String value = retryAfter.trim();
    long nanos;
    if (value.chars().allMatch(Character::isDigit)) {
      try {
        nanos = TimeUnit.SECONDS.toNanos(Long.parseLong(value));
      } catch (NumberFormatException e) {
        return -1; // too many digits for a long: no sensible wait
      }
    } else {
      try {
        ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
        nanos = TimeUnit.MILLISECONDS.toNanos(
            Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis()));
      } catch (DateTimeParseException e) {
        return -1;
      }
    }
    return Math.max(MIN_RETRY_NANOS, nanos);
  }

  /** The {@code Retry-After} as a duration, or null; for exceptions. */
  static Duration retryAfter(Reply reply) {
    long nanos = retryAfterNanos(reply.retryAfter());
    return nanos < 0 ? null : Duration.ofNanos(nanos);
  }

  private static void pause(long nanos, String what) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException(what, e);
    }
  }

  /**
   * The seed after {@code failed} in the seeds' order (the first one if {@code failed} is a
   * leader learned on the way) that is not in {@code excluded}; null when there is none.
   */
  private String nextSeed(String failed, Set<String> excluded) {
    int index = seeds.indexOf(failed);
    for (int i = 1; i <= seeds.size(); i++) {
      String candidate = seeds.get(Math.floorMod(index + i, seeds.size()));
      if (!excluded.contains(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /**
   * A new HTTP/1.1 connection of the worker transport (see {@link Http1Connection}), for
   * requests that stream or repeat at a high rate; {@code what} names the request in errors.
   */
  Http1Connection connect(String what) {
    return connect(base.get(), what);
  }

  /**
   * {@link #connect(String)} to the node at {@code to}. When it cannot be reached (nothing was
   * sent), the next connection goes to the next seed URL, after whatever backoff the caller keeps.
   */
  Http1Connection connect(String to, String what) {
    try {
      return Http1Connection.open(URI.create(to), connectTimeout, tls);
    } catch (IOException e) {
      String next = nextSeed(to, Set.of());
      if (next != null && !next.equals(to) && base.compareAndSet(to, next)) {
        LOG.info("{} unreachable ({}); the next connection tries {}", to, e.toString(), next);
      }
      throw new ConnectionException(what, e);
    }
  }

  Duration requestTimeout() {
    return requestTimeout;
  }

  <T> T decode(String method, String pathAndQuery, Reply reply, JavaType type) {
    try {
      return codec.forContentType(reply.contentType()).readValue(reply.body(), type);
    } catch (IOException e) {
      throw new SluiceException(reply.status(), "undecodable response: " + e.getMessage(),
          method + " " + pathAndQuery, e);
    }
  }

  SluiceException failure(String method, String pathAndQuery, Reply reply) {
    String what = method + " " + pathAndQuery;
    if (reply.status() == 503) {
      String leader;
      try {
        leader = leader(reply, URI.create(base.get() + pathAndQuery), what);
      } catch (SluiceException e) {
        leader = null; // a leader this client will not follow
      }
      return new UnavailableException(503, errorMessage(reply), what, retryAfter(reply), leader);
    }
    return ErrorMapping.toException(reply.status(), errorMessage(reply), what);
  }

  private String errorMessage(Reply reply) {
    if (reply.body().length > 0) {
      try {
        JsonNode error = codec.forContentType(reply.contentType()).readTree(reply.body());
        if (error != null && error.path("error").isTextual()) {
          return error.get("error").textValue();
        }
      } catch (IOException e) {
        // Not an API error body (e.g. a proxy's HTML page); fall through to the status text.
      }
    }
    return "HTTP " + reply.status();
  }
}
