package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RouterTest {
  private static final Router.Handler NOTHING = (exchange, params) -> { };

  private static List<String> segments(String... values) {
    return Arrays.asList(values);
  }

  private static String ownerPath(Router.Match match) {
    return match.owner() == null ? null : match.owner().path();
  }

  private static String handlerPath(Router.Match match) {
    return match.handler() == null ? null : match.handler().path();
  }

  @Test
  void aLiteralSegmentWinsOverAParameterWhateverTheOrderAdded() {
    Router router = new Router()
        .add(HttpMethod.GET, "/jobs/{id}", NOTHING)
        .add(HttpMethod.POST, "/jobs/bulk", NOTHING);

    Router.Match bulk = router.match(HttpMethod.GET, segments("jobs", "bulk"));
    assertThat(ownerPath(bulk)).isEqualTo("/jobs/bulk");
    assertThat(bulk.handler()).as("GET /jobs/bulk is a 405, not a job called bulk").isNull();

    Router.Match job = router.match(HttpMethod.GET, segments("jobs", "j1"));
    assertThat(handlerPath(job)).isEqualTo("/jobs/{id}");
    assertThat(job.handler().params(segments("jobs", "j1"))).containsExactly("j1");
  }

  @Test
  void theRequestMethodChoosesAmongRoutesOfOnePattern() {
    Router router = new Router()
        .add(HttpMethod.GET, "/jobs/{id}", NOTHING)
        .add(HttpMethod.DELETE, "/jobs/{id}", NOTHING);

    assertThat(router.match(HttpMethod.DELETE, segments("jobs", "j1")).handler().method())
        .isEqualTo(HttpMethod.DELETE);
    Router.Match put = router.match(HttpMethod.PUT, segments("jobs", "j1"));
    assertThat(ownerPath(put)).isEqualTo("/jobs/{id}");
    assertThat(put.handler()).isNull();
  }

  @Test
  void noRouteOfThePathsLengthOrLiteralsIsNoOwner() {
    Router router = new Router().add(HttpMethod.GET, "/jobs/{id}", NOTHING);

    assertThat(router.match(HttpMethod.GET, segments("jobs")).owner()).isNull();
    assertThat(router.match(HttpMethod.GET, segments("jobs", "j1", "errors", "1")).owner())
        .isNull();
    assertThat(router.match(HttpMethod.GET, segments("queues", "j1")).owner()).isNull();
  }

  @Test
  void anUndecodableSegmentFitsOnlyAParameter() {
    Router router = new Router()
        .add(HttpMethod.GET, "/jobs/{id}/errors/{attempt}", NOTHING)
        .add(HttpMethod.GET, "/jobs/{id}/errors/latest", NOTHING);
    List<String> path = segments("jobs", "j1", "errors", null);

    Router.Match match = router.match(HttpMethod.GET, path);
    assertThat(handlerPath(match)).isEqualTo("/jobs/{id}/errors/{attempt}");
    assertThat(match.handler().paramName(3)).isEqualTo("attempt");
    assertThat(match.handler().params(path)).containsExactly("j1", null);
  }

  @Test
  void aViewAddsUnderItsPrefixToTheSameRoutes() {
    Router router = new Router();
    router.under("/api").add(HttpMethod.GET, "/budgets/{key}", NOTHING);

    Router.Match match = router.match(HttpMethod.GET, segments("api", "budgets", "b1"));
    assertThat(handlerPath(match)).isEqualTo("/api/budgets/{key}");
    assertThat(match.handler().paramName(2)).isEqualTo("key");
  }

  /** A route as the router's first form kept it. */
  private record OldRoute(HttpMethod method, String[] pattern, Router.Handler handler) {
    List<String> match(List<String> segments) {
      if (segments.size() != pattern.length) {
        return null;
      }
      List<String> params = new ArrayList<>(2);
      for (int i = 0; i < pattern.length; i++) {
        if (pattern[i].startsWith("{")) {
          params.add(segments.get(i));
        } else if (!pattern[i].equals(segments.get(i))) {
          return null;
        }
      }
      return params;
    }
  }

  /** What the router's first form chose: every route tried in order, twice. */
  private record OldChoice(Router.Handler owner, Router.Handler handler, List<String> params) {}

  private static OldChoice reference(List<OldRoute> routes, HttpMethod method,
      List<String> segments) {
    int fewest = Integer.MAX_VALUE;
    OldRoute owner = null;
    for (OldRoute route : routes) {
      List<String> params = route.match(segments);
      if (params != null && params.size() < fewest) {
        fewest = params.size();
        owner = route;
      }
    }
    for (OldRoute route : routes) {
      List<String> params = route.match(segments);
      if (params != null && params.size() == fewest && route.method().equals(method)) {
        return new OldChoice(owner.handler(), route.handler(), params);
      }
    }
    return new OldChoice(owner == null ? null : owner.handler(), null, null);
  }

  @Test
  void choosesWhatTryingEveryRouteInOrderChose() {
    Random random = new Random(17);
    String[] words = {"jobs", "bulk", "queues", "x"};
    HttpMethod[] methods = {HttpMethod.GET, HttpMethod.POST, HttpMethod.DELETE};
    for (int table = 0; table < 300; table++) {
      Router router = new Router();
      List<OldRoute> added = new ArrayList<>();
      for (int r = random.nextInt(12); r >= 0; r--) {
        StringBuilder path = new StringBuilder();
        for (int s = 1 + random.nextInt(3); s > 0; s--) {
          path.append('/').append(random.nextInt(3) == 0 ? "{p" + s + "}"
              : words[random.nextInt(words.length)]);
        }
        HttpMethod method = methods[random.nextInt(methods.length)];
        // A handler of its own, so that the choice is checked by identity, not by look.
        Router.Handler handler = (exchange, params) -> { };
        router.add(method, path.toString(), handler);
        added.add(new OldRoute(method, path.substring(1).split("/"), handler));
      }
      for (int request = 0; request < 50; request++) {
        List<String> segments = new ArrayList<>();
        for (int s = 1 + random.nextInt(4); s > 0; s--) {
          int pick = random.nextInt(words.length + 2);
          segments.add(pick < words.length ? words[pick] : pick == words.length ? "y" : null);
        }
        HttpMethod method = methods[random.nextInt(methods.length)];
        OldChoice expected = reference(added, method, segments);
        Router.Match actual = router.match(method, segments);
        assertThat(actual.owner() == null ? null : actual.owner().handler())
            .as("owner of %s %s", method, segments).isSameAs(expected.owner());
        assertThat(actual.handler() == null ? null : actual.handler().handler())
            .as("handler of %s %s", method, segments).isSameAs(expected.handler());
        if (actual.handler() != null) {
          assertThat(actual.handler().params(segments)).isEqualTo(expected.params());
        }
      }
    }
  }
}
