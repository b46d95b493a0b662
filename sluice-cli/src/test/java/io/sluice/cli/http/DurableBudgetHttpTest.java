package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.assertErrorStartingWith;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.path;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The X4 {@code durable} policy field over HTTP: accepted by POST, PUT and PATCH in JSON and
 * MessagePack, shown only when true, dropped by a PUT without it, and refused when it is not a
 * boolean (400, a structural error) or null in a PATCH (422), leaving the budget as it was.
 */
class DurableBudgetHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClass();

  static final BudgetClient budgets = new BudgetClient(server);

  private static ObjectNode durable(ObjectNode policy) {
    return policy.put("durable", true);
  }

  @Test
  void aDurableBudgetShowsTheFieldAndAPlainOneDoesNot() {
    String key = ServerFixture.uniqueName("durable");
    String plain = ServerFixture.uniqueName("plain");

    Reply created = budgets.create(key, durable(timeBased(10, 60_000)));
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("durable").booleanValue()).isTrue();
    assertThat(budgets.fetch(key).get("durable").booleanValue()).isTrue();
    assertThat(server.get(path(key) + "?state=true").json().get("durable").booleanValue())
        .isTrue();
    assertThat(server.get("/budgets").json().get("budgets")).anySatisfy(listed -> {
      assertThat(listed.get("key").textValue()).isEqualTo(key);
      assertThat(listed.get("durable").booleanValue()).isTrue();
    });

    assertThat(budgets.define(plain, timeBased(10, 60_000).put("durable", false)).has("durable"))
        .as("false is not shown: the budget serialises as BUDGETS.md §2.1").isFalse();
  }

  @Test
  void putWithoutTheFieldTurnsItOffAndPatchTurnsItOnAndOff() {
    String key = ServerFixture.uniqueName("toggle");
    budgets.define(key, durable(timeBased(10, 60_000)));

    assertThat(budgets.define(key, timeBased(10, 60_000)).has("durable")).isFalse();
    assertThat(budgets.patchOk(key, parse("{\"durable\":true}")).get("durable").booleanValue())
        .isTrue();
    assertThat(budgets.patchOk(key, parse("{\"allocation\":20}")).get("durable").booleanValue())
        .as("a patch without the field keeps it").isTrue();
    assertThat(budgets.patchOk(key, parse("{\"durable\":false}")).has("durable")).isFalse();
  }

  @Test
  void theFieldTravelsInMessagePack() {
    String key = ServerFixture.uniqueName("mp");

    Reply created = budgets.sendMsgpack("POST", path(key), durable(timeBased(5, 1_000)));
    assertThat(created.status()).as("%s", created).isEqualTo(201);
    assertThat(created.contentType()).isEqualTo(MSGPACK_TYPE);
    assertThat(created.msgpack().get("durable").booleanValue()).isTrue();
    Reply patched = budgets.sendMsgpack("PATCH", path(key), parse("{\"durable\":false}"));
    assertThat(patched.status()).as("%s", patched).isEqualTo(200);
    assertThat(patched.msgpack().has("durable")).isFalse();
    Reply wrong = budgets.sendMsgpack("PATCH", path(key), parse("{\"durable\":1}"));
    assertThat(wrong.status()).isEqualTo(400);
    assertThat(wrong.msgpack().get("error").textValue())
        .isEqualTo("invalid MessagePack: `durable` must be a boolean");
  }

  @Test
  void aDurableThatIsNotABooleanIsABadRequestAndChangesNothing() {
    String key = ServerFixture.uniqueName("bad");
    JsonNode before = budgets.define(key, timeBased(10, 60_000));

    for (String value : new String[] {"\"yes\"", "1", "{}", "[true]"}) {
      assertError(budgets.put(key, timeBased(10, 60_000).set("durable", parse(value))), 400,
          "invalid JSON: `durable` must be a boolean");
      assertError(budgets.patch(key, "{\"durable\":" + value + "}"), 400,
          "invalid JSON: `durable` must be a boolean");
    }
    assertError(budgets.patch(key, "{\"durable\":null}"), 422, "durable cannot be null");
    assertThat(budgets.fetch(key)).isEqualTo(before);

    String created = ServerFixture.uniqueName("never");
    assertErrorStartingWith(budgets.create(created, timeBased(1, 1).put("durable", "true")), 400,
        "invalid JSON: ");
    assertThat(budgets.get(created).status()).isEqualTo(404);
  }

  @Test
  void createWithCarriesTheField() {
    String queue = ServerFixture.uniqueName("cw");
    String key = queue + "-b";
    ObjectNode job = ServerFixture.job(queue, "call");
    job.putArray("budgets").add(BudgetClient.bindingCreating(key,
        durable(timeBased(3, 60_000))));

    server.enqueue(job);
    assertThat(budgets.fetch(key).get("durable").booleanValue()).isTrue();
  }
}
