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

  /** The router's first form: every route tried in order, twice. */
  private static Router.Match reference(List<Router.Route> routes, HttpMethod method,
      List<String> segments) {
    int fewest = Integer.MAX_VALUE;
    Router.Route owner = null;
    for (Router.Route route : routes) {
      if (route.literals().length == segments.size() && route.matches(segments)
          && route.params() < fewest) {
        fewest = route.params();
        owner = route;
      }
    }
    for (Router.Route route : routes) {
      if (route.literals().length == segments.size() && route.matches(segments)
          && route.params() == fewest && route.method().equals(method)) {
        return new Router.Match(owner, route);
      }
    }
    return new Router.Match(owner, null);
  }

  @Test
  void choosesWhatTryingEveryRouteInOrderChose() {
    Random random = new Random(17);
    String[] words = {"jobs", "bulk", "queues", "x"};
    HttpMethod[] methods = {HttpMethod.GET, HttpMethod.POST, HttpMethod.DELETE};
    for (int table = 0; table < 300; table++) {
      Router router = new Router();
      List<Router.Route> added = new ArrayList<>();
      for (int r = random.nextInt(12); r >= 0; r--) {
        StringBuilder path = new StringBuilder();
        for (int s = 1 + random.nextInt(3); s > 0; s--) {
          path.append('/').append(random.nextInt(3) == 0 ? "{p" + s + "}"
              : words[random.nextInt(words.length)]);
        }
        HttpMethod method = methods[random.nextInt(methods.length)];
        router.add(method, path.toString(), NOTHING);
        added.add(Router.Route.of(method, path.toString(), NOTHING));
      }
      for (int request = 0; request < 50; request++) {
        List<String> segments = new ArrayList<>();
        for (int s = 1 + random.nextInt(4); s > 0; s--) {
          int pick = random.nextInt(words.length + 2);
          segments.add(pick < words.length ? words[pick] : pick == words.length ? "y" : null);
        }
        HttpMethod method = methods[random.nextInt(methods.length)];
        Router.Match expected = reference(added, method, segments);
        Router.Match actual = router.match(method, segments);
        assertThat(ownerPath(actual)).as("owner of %s %s", method, segments)
            .isEqualTo(ownerPath(expected));
        assertThat(handlerPath(actual)).as("handler of %s %s", method, segments)
            .isEqualTo(handlerPath(expected));
        if (actual.handler() != null) {
          assertThat(actual.handler().method()).isEqualTo(expected.handler().method());
          assertThat(actual.owner().method()).isEqualTo(expected.owner().method());
        }
      }
    }
  }
}
