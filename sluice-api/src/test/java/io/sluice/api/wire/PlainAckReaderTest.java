package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.AckedIds;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.JobId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The byte-by-byte reader of bulk acknowledgements against the document tree the route reads
 * otherwise: where it reads a body, the tree must hold exactly those ids and nothing else the
 * route would act on; where the tree is refused, or its ids would be, it must give up.
 */
class PlainAckReaderTest {
  private static final String ID = "\"0b9ys7e3ufp1n6z8k2q4r5t0v\"";
  private final Random random = new Random(29);

  @Test
  void readsThePlainShape() {
    AckedIds one = PlainAckReader.ids(Format.JSON, utf8("{\"ids\":[" + ID + "]}"));
    assertThat(one.texts()).containsExactly("0b9ys7e3ufp1n6z8k2q4r5t0v");
    assertThat(one.id(0)).isEqualTo(JobId.parseOrNull("0b9ys7e3ufp1n6z8k2q4r5t0v"));
    AckedIds noIds = PlainAckReader.ids(Format.JSON,
        utf8(" {\n \"ids\" : [ \"a\" ,\t\"b c\" , \"" + "z".repeat(25) + "\"] }\n"));
    assertThat(noIds.texts()).containsExactly("a", "b c", "z".repeat(25));
    assertThat(noIds.id(0)).isNull();
    assertThat(noIds.id(2)).as("past 2^128").isNull();
  }

  /** Past the reader's first 16 places, with texts that are no id on both sides of them. */
  @Test
  void readsManyIdsInOrder() {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      texts.add(i % 7 == 3 || i == 20 ? "not-an-id-" + i : new JobId(i, 1000L * i).toString());
    }
    String body = texts.stream().map(t -> "\"" + t + "\"")
        .collect(Collectors.joining(",", "{\"ids\":[", "]}"));
    AckedIds read = PlainAckReader.ids(Format.JSON, utf8(body));
    assertThat(read).isEqualTo(AckedIds.of(texts));
    assertThat(read.texts()).isEqualTo(texts);
    assertThat(read.id(20)).isNull();
    assertThat(read.id(39)).isEqualTo(new JobId(39, 39_000));
  }

  @Test
  void leavesEverythingElseToTheTree() {
    for (String body : new String[] {"{\"ids\":[]}", "{\"ids\":[\"a\"],\"settlements\":[]}",
        "{\"settlements\":[],\"ids\":[\"a\"]}", "{\"ids\":[\"a\\u0062\"]}", "{\"ids\":[1]}",
        "{\"ids\":[\"caf\u00e9\"]}", "{\"ids\":\"a\"}", "{\"ids\":[\"a\"]}x", "{\"id\\u0073\":[\"a\"]}",
        "{\"ids\":[\"a\"],\"ids\":[\"b\"]}", "[\"a\"]", "{\"ids\":[\"a\",]}", "{\"ids\":[null]}"}) {
      assertThat(PlainAckReader.ids(Format.JSON, utf8(body))).as(body).isNull();
    }
    assertThat(PlainAckReader.ids(Format.MSGPACK, utf8("{\"ids\":[\"a\"]}"))).isNull();
  }

  @Test
  void randomBodiesAgreeWithTheTree() {
    int read = 0;
    for (int round = 0; round < 20_000; round++) {
      byte[] body = utf8(randomBody());
      if (random.nextInt(3) == 0) {
        body = BodyEdits.edit(random, body, utf8("{}[]\":, \t\\ua1"));
      }
      read += compare(body) ? 1 : 0;
    }
    assertThat(read).isGreaterThan(3_000);
  }

  private static boolean compare(byte[] body) {
    if (JsonText.problemAt(body) >= 0) {
      return false;
    }
    AckedIds plain = PlainAckReader.ids(Format.JSON, body);
    AckedIds fromTree = treeIds(body);
    String text = new String(body, StandardCharsets.UTF_8);
    if (fromTree == null) {
      assertThat(plain).as("read although the route would refuse it or settle: %s", text).isNull();
      return false;
    }
    if (plain != null) {
      assertThat(plain).as(text).isEqualTo(fromTree);
    }
    return plain != null;
  }

  /**
   * The ids the route reads from the tree when the body has no settlements, or null when it
   * refuses the body or has settlements to read as well.
   */
  private static AckedIds treeIds(byte[] body) {
    BulkAcks acks;
    try {
      acks = BulkAcks.fromTree(Format.JSON, Bodies.tree(Format.JSON, body));
    } catch (SluiceException refused) {
      return null;
    }
    return acks.settlements().isEmpty() ? acks.ids() : null;
  }

  private String randomBody() {
    StringBuilder body = new StringBuilder(space()).append('{').append(space());
    if (random.nextInt(15) == 0) {
      body.append(pick("\"settlements\":[],", "\"other\":1,", "\"ids\":[\"x\"],")).append(space());
    }
    body.append(pick("\"ids\"", "\"ids\"", "\"ids\"", "\"id\"", "\"idsx\"")).append(space())
        .append(':').append(space()).append('[');
    int count = random.nextInt(20) == 0 ? 0 : 1 + random.nextInt(5);
    for (int i = 0; i < count; i++) {
      body.append(i > 0 ? "," : "").append(space()).append(randomId()).append(space());
    }
    body.append(']').append(space());
    if (random.nextInt(15) == 0) {
      body.append(pick(",\"settlements\":[]", ",\"x\":null"));
    }
    return body.append('}').append(space()).toString();
  }

  private String randomId() {
    return random.nextInt(6) != 0 ? ID : pick("\"\"", "\"a b\"", "\"\\\"\"", "\"\u00e9\"", "1", "null",
        "\"\\u0041\"", "\"\u007f\"", "[]", "\"tab\\t\"", "\"" + "z".repeat(25) + "\"",
        ID.toUpperCase(Locale.ROOT), "\"0b9ys7e3ufp1n6z8k2q4r5t0\"");
  }

  private String space() {
    return random.nextInt(6) == 0 ? pick(" ", "\n", "\t", "\r\n") : "";
  }

  private String pick(String... options) {
    return options[random.nextInt(options.length)];
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
