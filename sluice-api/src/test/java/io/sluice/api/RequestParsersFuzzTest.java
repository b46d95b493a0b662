package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.http.HttpError;
import io.sluice.api.http.PathSegments;
import io.sluice.api.http.QueryParams;
import io.sluice.api.wire.Bodies;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.CronWire;
import io.sluice.api.wire.EnqueueParser;
import io.sluice.api.wire.Fields;
import io.sluice.api.wire.FilterParser;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.PatchParser;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.job.JobId;
import io.vertx.core.MultiMap;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzes the request parsers the way the server drives them (body checks, then the parser of
 * each endpoint; query strings through {@link QueryParams} and {@link FilterParser}): every input
 * either parses or fails with an exception the server answers with a 4xx. Nothing else may
 * escape, and nothing may map to a 5xx.
 *
 * <p>Each property draws its inputs from a seed, so a failure names the seed that reproduces it
 * (shrinking would only try other seeds). Tries per property come from {@code
 * jqwik.tries.default}: 2,000 by default (src/test/resources/junit-platform.properties), 25,000
 * under the Maven profile {@code long} ({@code mvn verify -Plong}).
 */
class RequestParsersFuzzTest {
  private static final JobId ID = new JobId(1L, 2L);
  private static final Set<String> LIST_PARAMS = listParams();

  /** An endpoint's body: its shape, valid examples to mutate, and how the server parses it. */
  enum Target {
    ENQUEUE(FuzzInputs.JOB, (format, bytes) -> new EnqueueParser(format)
        .readOne(Bodies.checked(format, bytes), () -> ID),
        "{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"a\":[1,\"x\"]},\"priority\":5,"
            + "\"ready_at\":1700000000000,\"retry_limit\":3,\"backoff\":{\"base_ms\":1,"
            + "\"exponent\":2.5,\"jitter_ms\":0},\"retention\":{\"completed_ms\":0},"
            + "\"unique_key\":\"k\",\"unique_while\":\"active\"}",
        "{\"type\":\"t\",\"queue\":\"q\",\"payload\":null,\"batch\":{\"key\":\"b\","
            + "\"when\":\"true\",\"fold\":\"$existing\"},\"budgets\":[{\"key\":\"b\",\"cost\":2,"
            + "\"create_with\":{\"allocation\":5,\"strategy\":{\"type\":\"time_based\","
            + "\"duration_ms\":1000,\"burst\":6}}}]}"),
    BULK(FuzzInputs.BULK, (format, bytes) -> new EnqueueParser(format)
        .readBulk(Bodies.checked(format, bytes), () -> ID),
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1},{\"type\":\"\u00e9\","
            + "\"queue\":\"\uD83D\uDE00\",\"payload\":\"\\ud83d\\ude00\",\"priority\":0}]}"),
    PATCH(FuzzInputs.PATCH, (format, bytes) -> PatchParser.parse(format, tree(format, bytes)),
        "{\"queue\":\"q\",\"priority\":1,\"ready_at\":null,\"retry_limit\":null,"
            + "\"backoff\":{\"base_ms\":1,\"exponent\":1,\"jitter_ms\":1},"
            + "\"retention\":{\"dead_ms\":null,\"completed_ms\":5}}"),
    BUDGET(FuzzInputs.POLICY, (format, bytes) -> BudgetPolicy.validate(
        BudgetWire.policySpec(new Fields(format, ""), tree(format, bytes))),
        "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":60000,"
            + "\"burst\":20}}",
        "{\"allocation\":3,\"strategy\":{\"type\":\"while_in_flight\"}}"),
    BUDGET_PATCH(FuzzInputs.POLICY, (format, bytes) ->
        BudgetWire.policyPatch(new Fields(format, ""), tree(format, bytes)),
        "{\"allocation\":4,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":10,"
            + "\"burst\":null}}"),
    BINDING(FuzzInputs.BINDING, (format, bytes) ->
        BudgetWire.binding(new Fields(format, ""), tree(format, bytes), null),
        "{\"key\":\"b\",\"cost\":1,\"create_with\":{\"allocation\":1,"
            + "\"strategy\":{\"type\":\"while_in_flight\"}}}"),
    BINDINGS(FuzzInputs.BINDINGS, (format, bytes) -> {
      Fields fields = new Fields(format, "");
      JsonNode body = fields.object(tree(format, bytes), "the request");
      BudgetWire.bindings(fields, fields.required(body, "budgets"));
    }, "{\"budgets\":[{\"key\":\"a\"},{\"key\":\"b\",\"cost\":3}]}"),
    BINDING_COST(FuzzInputs.COST, (format, bytes) -> {
      Fields fields = new Fields(format, "");
      fields.unsigned(fields.object(tree(format, bytes), "the request"), "cost", 0xFFFFFFFFL);
    }, "{\"cost\":7}"),
    CRON_GROUP(FuzzInputs.GROUP, (format, bytes) -> CronWire.groupSpec(format, tree(format, bytes)),
        "{\"paused\":false,\"timezone\":\"Europe/Rome\",\"entries\":[{\"name\":\"e\","
            + "\"expression\":\"*/5 * * * *\",\"job\":{\"type\":\"t\",\"queue\":\"q\","
            + "\"payload\":{}}},{\"name\":\"f\",\"expression\":\"0 0 L * *\","
            + "\"timezone\":\"UTC\",\"paused\":true,\"job\":{\"type\":\"t\",\"queue\":\"q\","
            + "\"payload\":1,\"unique_key\":\"u\"}}]}"),
    CRON_GROUP_PATCH(FuzzInputs.GROUP, (format, bytes) ->
        CronWire.groupPatch(format, tree(format, bytes)),
        "{\"paused\":true,\"timezone\":null}"),
    CRON_ENTRY(FuzzInputs.ENTRY, (format, bytes) ->
        CronWire.entrySpec(format, tree(format, bytes), null),
        "{\"name\":\"e\",\"expression\":\"0 0 * * MON-FRI\",\"timezone\":\"+02:00\","
            + "\"job\":{\"type\":\"t\",\"queue\":\"q\",\"payload\":[]}}"),
    CRON_ENTRY_PUT(FuzzInputs.ENTRY, (format, bytes) ->
        CronWire.entrySpec(format, tree(format, bytes), "from-path"),
        "{\"expression\":\"@daily\",\"job\":{\"type\":\"t\",\"queue\":\"q\",\"payload\":{}}}"),
    CRON_ENTRY_PAUSED(FuzzInputs.ENTRY, (format, bytes) ->
        CronWire.entryPaused(format, tree(format, bytes)),
        "{\"paused\":true}");

    final FuzzInputs.Obj shape;
    final BiConsumer<Format, byte[]> parse;
    final List<JsonNode> seeds;

    Target(FuzzInputs.Obj shape, BiConsumer<Format, byte[]> parse, String... seeds) {
      this.shape = shape;
      this.parse = parse;
      this.seeds = List.of(seeds).stream().map(RequestParsersFuzzTest::json).toList();
    }
  }

  private static JsonNode tree(Format format, byte[] bytes) {
    return Bodies.tree(format, Bodies.checked(format, bytes));
  }

  private static JsonNode json(String text) {
    return Bodies.tree(Format.JSON, text.getBytes(StandardCharsets.UTF_8));
  }

  private static Set<String> listParams() {
    Set<String> names = new HashSet<>(FilterParser.FILTER_PARAMS);
    names.addAll(Set.of("order", "limit", "from"));
    return Set.copyOf(names);
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void generatedBodiesParseOrAreClientErrors(@ForAll Target target, @ForAll Format format,
      @ForAll long seed) {
    JsonNode body = new FuzzInputs(new Random(seed)).body(target.shape);
    byte[] bytes = FuzzInputs.encode(format, body);

    parsesOrIsAClientError(() -> target.parse.accept(format, bytes),
        target + " " + format + " " + body);
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void mutatedBodiesParseOrAreClientErrors(@ForAll Target target, @ForAll Format format,
      @ForAll long seed) {
    Random random = new Random(seed);
    FuzzInputs inputs = new FuzzInputs(random);
    JsonNode seedBody = target.seeds.get(random.nextInt(target.seeds.size()));
    byte[] bytes = inputs.mutate(FuzzInputs.encode(format, seedBody));

    parsesOrIsAClientError(() -> target.parse.accept(format, bytes),
        target + " " + format + " " + HexFormat.of().formatHex(bytes));
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void mutatedGeneratedBodiesParseOrAreClientErrors(@ForAll Target target, @ForAll Format format,
      @ForAll long seed) {
    FuzzInputs inputs = new FuzzInputs(new Random(seed));
    byte[] bytes = inputs.mutate(FuzzInputs.encode(format, inputs.body(target.shape)));

    parsesOrIsAClientError(() -> target.parse.accept(format, bytes),
        target + " " + format + " " + HexFormat.of().formatHex(bytes));
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void queryStringsParseOrAreClientErrors(@ForAll long seed) {
    String raw = new FuzzInputs(new Random(seed)).query();

    parsesOrIsAClientError(() -> {
      MultiMap query = QueryParams.parse(raw, LIST_PARAMS);
      FilterParser.parse(query);
      Pagination.descending(query.get("order"));
      Pagination.limit(query.get("limit"));
      String from = query.get("from");
      if (from != null && !from.isEmpty()) {
        FilterParser.cursorId(from);
      }
    }, "?" + raw);
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void pathsAlwaysDecodeOrNameTheirBadSegment(@ForAll long seed) {
    String raw = new FuzzInputs(new Random(seed)).path();

    PathSegments.Decoded path = PathSegments.parse(raw);

    if (path != null) {
      assertThat(path.malformed() < 0 || path.segments().get(path.malformed()) == null)
          .as(raw).isTrue();
      assertThat(path.segments().stream().filter(s -> s == null).count() == 0)
          .as(raw).isEqualTo(path.malformed() < 0);
    }
  }

  /** Also counts the outcomes, which jqwik reports per property. */
  private static void parsesOrIsAClientError(Runnable parse, String input) {
    try {
      parse.run();
      Statistics.collect("parsed");
    } catch (RuntimeException e) {
      int status = HttpError.of(e).status();
      assertThat(status).as("status for %s on %s", e, input).isBetween(400, 499);
      Statistics.collect(status);
    }
  }
}
