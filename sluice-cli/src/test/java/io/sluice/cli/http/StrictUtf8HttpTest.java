package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Text enters the server as strict UTF-8 only: bodies (JSON and MessagePack), query strings and
 * path segments carrying ill-formed UTF-8 (overlong forms, encoded surrogates, code points above
 * U+10FFFF, truncated sequences) or JSON escapes of unpaired surrogates are 400s naming the field,
 * never decoded loosely into another name; valid 4-byte characters still round-trip.
 */
class StrictUtf8HttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  private static final String EMOJI = "\uD83D\uDE00";

  /** Ill-formed byte sequences, each followed by an ASCII byte where they are embedded. */
  enum Malformed {
    OVERLONG("c0af"),
    SURROGATE("eda080"),
    ABOVE_MAX("f4908080"),
    TRUNCATED("e282");

    final byte[] bytes;

    Malformed(String hex) {
      this.bytes = HexFormat.of().parseHex(hex);
    }

    /** The bytes percent-encoded, as a client would put them in a URL. */
    String escaped() {
      StringBuilder out = new StringBuilder();
      for (byte b : bytes) {
        out.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
      }
      return out.toString();
    }
  }

  /** {@code template} as UTF-8 with each {@code @} replaced by {@code inserted}. */
  static byte[] withBytes(String template, byte[] inserted) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] parts = template.split("@", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.writeBytes(inserted);
      }
      out.writeBytes(parts[i].getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  static RawRequest postJson(String path, byte[] body) {
    return RawRequest.send(server.port(), "POST", ascii(path), "application/json", body);
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  @Nested
  class JsonBodies {
    @ParameterizedTest
    @EnumSource(Malformed.class)
    void malformedQueueIsRejectedByName(Malformed form) {
      byte[] body = withBytes("{\"type\":\"t\",\"queue\":\"q@x\",\"payload\":1}", form.bytes);

      assertThat(postJson("/jobs", body).error(400))
          .isEqualTo("invalid JSON: malformed UTF-8 in `queue`");
    }

    @Test
    void unpairedSurrogateEscapeInQueueIsRejected() {
      byte[] body = ascii("{\"type\":\"t\",\"queue\":\"q\\ud800\",\"payload\":1}");

      assertThat(postJson("/jobs", body).error(400))
          .isEqualTo("invalid JSON: unpaired surrogate escape in `queue`");
    }

    @Test
    void lowSurrogateEscapeAloneIsRejected() {
      byte[] body = ascii("{\"type\":\"t\\udc00\\ud800\",\"queue\":\"q\",\"payload\":1}");

      assertThat(postJson("/jobs", body).error(400))
          .isEqualTo("invalid JSON: unpaired surrogate escape in `type`");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "/jobs|{\"type\":\"t@\",\"queue\":\"q\",\"payload\":1}|type",
      "/jobs|{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"unique_key\":\"k@\"}|unique_key",
      "/jobs|{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"batch\":{\"key\":\"@\"}}|batch.key",
      "/jobs|{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"budgets\":[{\"key\":\"@\"}]}"
          + "|budgets[0].key",
      "/jobs|{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"a\":[0,\"@\"]}}|payload.a[1]",
      "/jobs/bulk|{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1},"
          + "{\"type\":\"t\",\"queue\":\"@\",\"payload\":1}]}|jobs[1].queue",
      "/jobs/success|{\"ids\":[\"@\"]}|ids[0]",
      "/budgets/b|{\"allocation\":1,\"strategy\":{\"type\":\"while_in_flight@\"}}|strategy.type"
    })
    void malformedTextIsRejectedWithItsPath(String path, String template, String field) {
      byte[] body = withBytes(template, Malformed.OVERLONG.bytes);

      assertThat(postJson(path, body).error(400))
          .isEqualTo("invalid JSON: malformed UTF-8 in `" + field + "`");
    }

    @Test
    void malformedCronEntryNameIsRejected() {
      byte[] body = withBytes("{\"entries\":[{\"name\":\"e@\",\"expression\":\"* * * * *\","
          + "\"job\":{\"type\":\"t\",\"queue\":\"q\",\"payload\":1}}]}", Malformed.SURROGATE.bytes);

      RawRequest reply = RawRequest.send(server.port(), "PUT", ascii("/crons/utf8-group"),
          "application/json", body);

      assertThat(reply.error(400)).isEqualTo("invalid JSON: malformed UTF-8 in `entries[0].name`");
      assertThat(server.get("/crons/utf8-group").status()).isEqualTo(404);
    }

    @Test
    void malformedQueueInPatchIsA400NotANameRule422() {
      String jobId = server.enqueueId(ServerFixture.uniqueName("utf8-patch"));
      byte[] body = withBytes("{\"queue\":\"@\"}", Malformed.OVERLONG.bytes);

      RawRequest reply = RawRequest.send(server.port(), "PATCH", ascii("/jobs/" + jobId),
          "application/json", body);

      assertThat(reply.error(400)).isEqualTo("invalid JSON: malformed UTF-8 in `queue`");
    }

    @Test
    void malformedFieldNameIsRejected() {
      byte[] body = withBytes("{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"k@\":1}}",
          Malformed.ABOVE_MAX.bytes);

      assertThat(postJson("/jobs", body).error(400))
          .isEqualTo("invalid JSON: malformed UTF-8 in a field name inside `payload`");
    }

    @Test
    void unpairedSurrogateEscapeInsideAPayloadIsRejected() {
      byte[] body = ascii("{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"s\":\"\\udbff!\"}}");

      assertThat(postJson("/jobs", body).error(400))
          .isEqualTo("invalid JSON: unpaired surrogate escape in `payload.s`");
    }
  }

  @Nested
  class MessagePackBodies {
    @ParameterizedTest
    @EnumSource(Malformed.class)
    void malformedQueueIsRejectedByName(Malformed form) throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(3);
      packer.packString("type").packString("t");
      packer.packString("queue").packRawStringHeader(form.bytes.length + 1);
      packer.writePayload(form.bytes).writePayload(ascii("x"));
      packer.packString("payload").packInt(1);

      RawRequest reply = RawRequest.send(server.port(), "POST", ascii("/jobs"), MSGPACK_TYPE,
          packer.toByteArray());

      assertThat(reply.error(400)).isEqualTo("invalid MessagePack: malformed UTF-8 in `queue`");
    }

    @Test
    void malformedKeyInABulkJobIsRejected() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(1).packString("jobs").packArrayHeader(1).packMapHeader(4);
      packer.packString("type").packString("t");
      packer.packString("queue").packString("q");
      packer.packString("payload").packInt(1);
      packer.packRawStringHeader(2).writePayload(Malformed.OVERLONG.bytes).packInt(0);

      RawRequest reply = RawRequest.send(server.port(), "POST", ascii("/jobs/bulk"),
          MSGPACK_TYPE, packer.toByteArray());

      assertThat(reply.error(400))
          .isEqualTo("invalid MessagePack: malformed UTF-8 in a field name inside `jobs[0]`");
    }
  }

  @Nested
  class QueryStrings {
    @ParameterizedTest
    @EnumSource(Malformed.class)
    void malformedValueIsRejectedByName(Malformed form) {
      RawRequest reply = RawRequest.get(server.port(), "/jobs/count?queue=" + form.escaped());

      assertThat(reply.error(400))
          .isEqualTo("invalid query parameters: malformed UTF-8 in `queue`");
    }

    @ParameterizedTest
    @CsvSource({
      "/jobs?status=ready&type=%C0%AF, type",
      "/jobs?budgets.key=%ED%A0%80, budgets.key",
      "'/jobs/take?queue=a,%F4%90%80%80', queue",
      "/jobs/count?filter=%E0, filter",
      "/jobs?id=%C0%AF, id"
    })
    void malformedValueIsRejectedOnEveryFilteredEndpoint(String target, String name) {
      assertThat(RawRequest.get(server.port(), target).error(400))
          .isEqualTo("invalid query parameters: malformed UTF-8 in `" + name + "`");
    }

    @Test
    void malformedValueIsRejectedOnBulkDelete() {
      String queue = ServerFixture.uniqueName("utf8-delete");
      server.enqueueId(queue);

      RawRequest reply = RawRequest.send(server.port(), "DELETE",
          ascii("/jobs?queue=" + queue + ",%C0%AF"), null, null);

      assertThat(reply.error(400)).isEqualTo("invalid query parameters: malformed UTF-8 in `queue`");
      assertThat(server.get("/jobs/count?queue=" + queue).json().get("count").asLong())
          .isEqualTo(1);
    }

    @Test
    void rawMalformedBytesInTheRequestLineAreRejected() {
      byte[] target = withBytes("/jobs/count?queue=@", Malformed.OVERLONG.bytes);

      RawRequest reply = RawRequest.send(server.port(), "GET", target, null, null);

      assertThat(reply.error(400)).isEqualTo("invalid query parameters: malformed UTF-8 in `queue`");
    }

    @ParameterizedTest
    @CsvSource({
      "/jobs/count?queue=%ZZ, queue",
      "/jobs?status=ready&queue=a%, queue",
      "/jobs/take?prefetch=1&queue=%%, queue",
      "/jobs/1/errors?from=%G1, from",
      "/health?x=%Z, x"
    })
    void malformedEscapeNamesTheParameter(String target, String name) {
      assertThat(RawRequest.get(server.port(), target).error(400))
          .isEqualTo("invalid query parameters: malformed percent-encoding in `" + name + "`");
    }

    @ParameterizedTest
    @CsvSource({
      "/jobs?%G1=x, invalid query parameters: malformed percent-encoding in parameter name `%G1`",
      "/jobs?q%C0%AF=x, invalid query parameters: malformed UTF-8 in parameter name `q%C0%AF`"
    })
    void malformedNameIsShownAsSent(String target, String message) {
      assertThat(RawRequest.get(server.port(), target).error(400)).isEqualTo(message);
    }
  }

  @Nested
  class PathSegments {
    @ParameterizedTest
    @EnumSource(Malformed.class)
    void malformedBudgetKeyIsRejected(Malformed form) {
      assertThat(RawRequest.get(server.port(), "/budgets/" + form.escaped()).error(400))
          .isEqualTo("invalid path: malformed UTF-8 in `key`");
    }

    @ParameterizedTest
    @CsvSource({
      "GET, /jobs/%C0%AF, id",
      "POST, /jobs/%ED%A0%80/success, id",
      "DELETE, /crons/g/entries/%F4%90%80%80, entry",
      "GET, /crons/%E0, group",
      "DELETE, /jobs/budgets/%E2%82x, key"
    })
    void malformedSegmentNamesItsParameter(String method, String target, String name) {
      RawRequest reply = RawRequest.send(server.port(), method, ascii(target), null, null);

      assertThat(reply.error(400)).isEqualTo("invalid path: malformed UTF-8 in `" + name + "`");
    }

    @Test
    void rawMalformedBytesInAPathAreRejected() {
      byte[] target = withBytes("/budgets/@", Malformed.SURROGATE.bytes);

      RawRequest reply = RawRequest.send(server.port(), "GET", target, null, null);

      assertThat(reply.error(400)).isEqualTo("invalid path: malformed UTF-8 in `key`");
    }

    @ParameterizedTest
    @CsvSource({"/jobs/%ZZ, id", "/budgets/%E, key", "/jobs/a/errors/%, attempt"})
    void malformedEscapeNamesItsParameter(String target, String name) {
      assertThat(RawRequest.get(server.port(), target).error(400))
          .isEqualTo("invalid path: malformed percent-encoding in `" + name + "`");
    }

    @ParameterizedTest
    @CsvSource({"/nowhere/%ZZ", "/nowhere/%C0%AF", "/jobs/a/b/%ZZ"})
    void malformedSegmentOfAnUnknownPathIsNotFound(String target) {
      assertThat(RawRequest.get(server.port(), target).error(404)).isEqualTo("not found");
    }
  }

  @Nested
  class UniqueKeys {
    @Test
    void encodedSurrogateAndEscapedSurrogateNoLongerMeetAsOneKey() {
      String queue = ServerFixture.uniqueName("utf8-unique");
      byte[] encoded = withBytes("{\"type\":\"t\",\"queue\":\"" + queue
          + "\",\"payload\":1,\"unique_key\":\"@\"}", Malformed.SURROGATE.bytes);
      byte[] escaped = ascii("{\"type\":\"t\",\"queue\":\"" + queue
          + "\",\"payload\":2,\"unique_key\":\"\\ud800\"}");

      assertThat(postJson("/jobs", encoded).error(400))
          .isEqualTo("invalid JSON: malformed UTF-8 in `unique_key`");
      assertThat(postJson("/jobs", escaped).error(400))
          .isEqualTo("invalid JSON: unpaired surrogate escape in `unique_key`");
      assertThat(server.get("/jobs/count?queue=" + queue).json().get("count").asLong())
          .isZero();
    }
  }

  @Nested
  class ValidFourByteCharacters {
    @Test
    void emojiRoundTripInNamesKeysAndPayloads() throws IOException {
      String queue = ServerFixture.uniqueName("utf8-" + EMOJI);
      String body = "{\"type\":\"t" + EMOJI + "\",\"queue\":\"" + queue + "\","
          + "\"unique_key\":\"k" + EMOJI + "\",\"budgets\":[{\"key\":\"b" + EMOJI + "\","
          + "\"create_with\":{\"allocation\":1,\"strategy\":{\"type\":\"while_in_flight\"}}}],"
          + "\"payload\":{\"raw\":\"" + EMOJI + "\",\"escaped\":\"\\ud83d\\ude00\","
          + "\"" + EMOJI + "\":true}}";

      Reply created = server.postJson("/jobs", body);
      assertThat(created.status()).as("%s", created).isEqualTo(201);

      JsonNode job = server.getJob(id(created.json()));
      assertThat(job.get("type").textValue()).isEqualTo("t" + EMOJI);
      assertThat(job.get("queue").textValue()).isEqualTo(queue);
      assertThat(job.get("unique_key").textValue()).isEqualTo("k" + EMOJI);
      assertThat(job.get("budgets").get(0).get("key").textValue()).isEqualTo("b" + EMOJI);
      assertThat(job.get("payload")).isEqualTo(JSON.readTree(
          "{\"raw\":\"" + EMOJI + "\",\"escaped\":\"" + EMOJI + "\",\"" + EMOJI + "\":true}"));
      String encodedQueue = BudgetClient.encode(queue);
      assertThat(server.get("/jobs/count?queue=" + encodedQueue).json().get("count").asLong())
          .isEqualTo(1);
      assertThat(server.get("/budgets/" + BudgetClient.encode("b" + EMOJI)).status())
          .isEqualTo(200);
      RawRequest rawQuery = RawRequest.send(server.port(), "GET",
          ("/jobs/count?queue=" + queue).getBytes(StandardCharsets.UTF_8), null, null);
      assertThat(rawQuery.body()).as("%s", rawQuery).isEqualTo("{\"count\":1}");
    }

    @Test
    void emojiRoundTripsThroughMessagePack() throws IOException {
      String queue = ServerFixture.uniqueName("utf8-mp-" + EMOJI);
      JsonNode request = JSON.readTree("{\"type\":\"" + EMOJI + "\",\"queue\":\"" + queue
          + "\",\"payload\":{\"" + EMOJI + "\":\"" + EMOJI + "\"}}");

      Reply created = server.postMsgpack("/jobs", ServerFixture.toMsgpack(request));
      assertThat(created.status()).as("%s", created).isEqualTo(201);

      Reply read = server.get("/jobs/" + id(created.msgpack()), "Accept", MSGPACK_TYPE);
      JsonNode job = MSGPACK.readTree(read.body());
      assertThat(job.get("type").textValue()).isEqualTo(EMOJI);
      assertThat(job.get("queue").textValue()).isEqualTo(queue);
      assertThat(job.get("payload")).isEqualTo(request.get("payload"));
    }

    @Test
    void rawEmojiBytesInAPathAndQueryAreDecodedAsUtf8() {
      String group = "g" + EMOJI;
      byte[] body = ("{\"entries\":[{\"name\":\"e" + EMOJI + "\",\"expression\":\"0 0 1 1 *\","
          + "\"job\":{\"type\":\"t\",\"queue\":\"q\",\"payload\":1}}]}")
          .getBytes(StandardCharsets.UTF_8);

      RawRequest put = RawRequest.send(server.port(), "PUT",
          ("/crons/" + group).getBytes(StandardCharsets.UTF_8), "application/json", body);

      assertThat(put.status()).as("%s", put).isEqualTo(200);
      Reply read = server.get(CronClient.entryPath(group, "e" + EMOJI));
      assertThat(read.status()).as("%s", read).isEqualTo(200);
      assertThat(read.json().get("name").textValue()).isEqualTo("e" + EMOJI);
    }
  }
}
