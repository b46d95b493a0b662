package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.SluiceException;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The byte-by-byte reader of plain enqueue bodies against Jackson's token path: on every body it
 * reads, it must give exactly the jobs Jackson gives, and it must give up on every body Jackson
 * refuses. Random bodies near the plain shape, and random corruptions of plain ones, probe both.
 */
class PlainEnqueueReaderTest {
  private static final String[] PAYLOADS = {
      "{\"i\":1,\"text\":\"xxxxxxxx\"}", "null", "true", "false", "0", "-0", "12.5", "-3.25",
      "\"s\"", "\"\"", "[]", "{}", "[1,[2,[3]],{\"a\":{}}]", "\"caf\u00e9 \u2603 \ud83d\ude00\"",
      "\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"", "{\"k\":\"v\",\"k\":1}",
      "\"\u007f\"", "[null,true,false,-1,0.5]"};

  private final Random random = new Random(17);

  @Test
  void theCommonShapesAreReadAsJacksonReadsThem() {
    assertPlain("{\"jobs\":[{\"type\":\"bench\",\"queue\":\"q\",\"payload\":{\"i\":0}}]}", true);
    assertPlain("{\"jobs\":[{\"payload\":[1,2],\"queue\":\"q\",\"type\":\"t\",\"priority\":7},"
        + "{\"type\":\"t\",\"queue\":\"q2\",\"payload\":\"x\",\"priority\":65535}]}", true);
    assertPlain(" {\n  \"jobs\" : [\n    { \"type\" : \"a.b-c_d:e\", \"queue\" : \"q\" ,"
        + " \"payload\" : {\"nested\":{\"deep\":[0,-1.5]}} }\n  ]\n}\n", true);
    assertPlain("{\"type\":\"t\",\"queue\":\"q\",\"payload\":null}", false);
    assertPlain("\t{\"priority\":0,\"type\":\"t\",\"queue\":\"q\",\"payload\":\"\"} ", false);
    for (String payload : PAYLOADS) {
      assertPlain("{\"type\":\"t\",\"queue\":\"q\",\"payload\":" + payload + "}", false);
    }
  }

  @Test
  void theParserGivesTheSameJobsWhicheverWayItReads() {
    for (String body : new String[] {
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"a\":[1,2]}}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"a\": [1, 2]}}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":2.5e1,\"retry_limit\":3}]}"}) {
      byte[] bytes = utf8(body);
      EnqueueParser parser = new EnqueueParser(Format.JSON);
      assertSame(parser.readBulk(bytes, ids()), parser.readBulkTokens(bytes, ids()), body);
      assertSame(List.of(parser.readOne(utf8(body.substring(9, body.length() - 2)), ids())),
          List.of(parser.readOneTokens(utf8(body.substring(9, body.length() - 2)), ids())), body);
    }
  }

  @Test
  void payloadsAtTheLimitsAreRead() {
    String deepest = "[".repeat(64) + "]".repeat(64);
    String longestKey = "{\"" + "k".repeat(1024) + "\":1}";
    assertPlain("{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":" + deepest + "}]}", true);
    assertPlain("{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":" + longestKey + "}]}",
        true);
  }

  @Test
  void otherShapesAreLeftToJackson() {
    String[] bulk = {
        "{\"jobs\":[]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":{ \"a\":1}}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1e5}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"ready_at\":5}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":null}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":1.0}]}",
        "{\"jobs\":[{\"type\":\"t\",\"type\":\"u\",\"queue\":\"q\",\"payload\":1}]}",
        "{\"jobs\":[{\"typ\\u0065\":\"t\",\"queue\":\"q\",\"payload\":1}]}",
        "{\"jobs\":[{\"type\":\"t\\u0041\",\"queue\":\"q\",\"payload\":1}]}",
        "{\"jobs\":[{\"type\":\"caf\u00e9\",\"queue\":\"q\",\"payload\":1}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1}],\"other\":1}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1}],\"jobs\":[]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":\"a\tb\"}]}",
        "\ufeff{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":1}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":" + "[".repeat(65) + "]".repeat(65)
            + "}]}",
        "{\"jobs\":[{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"" + "k".repeat(1025)
            + "\":1}}]}",
    };
    for (String body : bulk) {
      AtomicLong drawn = new AtomicLong();
      assertThat(PlainEnqueueReader.readBulk(utf8(body), () -> new JobId(0, drawn.incrementAndGet())))
          .as(body).isNull();
      assertThat(drawn).as("ids drawn for %s", body).hasValue(0);
    }
  }

  @Test
  void randomBodiesNearThePlainShapeAgreeWithJackson() {
    int read = 0;
    for (int round = 0; round < 20_000; round++) {
      boolean bulk = random.nextBoolean();
      String body = bulk ? randomBulk() : randomJob();
      read += compare(utf8(body), bulk) ? 1 : 0;
    }
    // Enough of them are plain that the comparison means something.
    assertThat(read).isGreaterThan(2_000);
  }

  @Test
  void corruptedPlainBodiesAgreeWithJackson() {
    int read = 0;
    for (int round = 0; round < 20_000; round++) {
      boolean bulk = random.nextBoolean();
      byte[] body = corrupt(utf8(bulk ? plainBulk() : plainJob()));
      read += compare(body, bulk) ? 1 : 0;
    }
    assertThat(read).isGreaterThan(100);
  }

  /** True when the plain reader read the body (and agreed with Jackson on it). */
  private boolean compare(byte[] body, boolean bulk) {
    if (JsonText.problemAt(body) >= 0) {
      return false; // refused before any parser reads it
    }
    AtomicLong drawn = new AtomicLong();
    Supplier<JobId> counted = () -> new JobId(0, drawn.incrementAndGet());
    List<NewJob> plain = bulk
        ? PlainEnqueueReader.readBulk(body, counted)
        : single(PlainEnqueueReader.readOne(body, counted));
    List<NewJob> tokens;
    try {
      EnqueueParser parser = new EnqueueParser(Format.JSON);
      tokens = bulk ? parser.readBulkTokens(body, ids()) : List.of(parser.readOneTokens(body, ids()));
    } catch (SluiceException refused) {
      assertThat(plain).as("read although Jackson refused (%s): %s", refused.getMessage(),
          new String(body, StandardCharsets.UTF_8)).isNull();
      assertThat(drawn).as("ids drawn for a refused body").hasValue(0);
      return false;
    }
    if (plain == null) {
      assertThat(drawn).as("ids drawn for a body given up on").hasValue(0);
      return false;
    }
    assertSame(plain, tokens, new String(body, StandardCharsets.UTF_8));
    return true;
  }

  private void assertPlain(String body, boolean bulk) {
    byte[] bytes = utf8(body);
    List<NewJob> plain = bulk
        ? PlainEnqueueReader.readBulk(bytes, ids())
        : single(PlainEnqueueReader.readOne(bytes, ids()));
    assertThat(plain).as(body).isNotNull();
    EnqueueParser parser = new EnqueueParser(Format.JSON);
    assertSame(plain, bulk ? parser.readBulkTokens(bytes, ids())
        : List.of(parser.readOneTokens(bytes, ids())), body);
  }

  private static void assertSame(List<NewJob> plain, List<NewJob> tokens, String body) {
    assertThat(plain).as(body).hasSameSizeAs(tokens);
    for (int i = 0; i < plain.size(); i++) {
      NewJob a = plain.get(i);
      NewJob b = tokens.get(i);
      assertThat(new String(a.payload(), StandardCharsets.UTF_8)).as(body)
          .isEqualTo(new String(b.payload(), StandardCharsets.UTF_8));
      assertThat(a).as(body).usingRecursiveComparison().ignoringFields("payload").isEqualTo(b);
    }
  }

  private static List<NewJob> single(NewJob job) {
    return job == null ? null : List.of(job);
  }

  /** Ids 1, 2, 3...: both readers draw them in job order. */
  private static Supplier<JobId> ids() {
    AtomicLong next = new AtomicLong();
    return () -> new JobId(0, next.incrementAndGet());
  }

  private String randomBulk() {
    StringBuilder body = new StringBuilder(space()).append("{").append(space())
        .append(pick("\"jobs\"", "\"jobs\"", "\"jobs\"", "\"job\"", "\"Jobs\"")).append(space())
        .append(':').append(space()).append('[');
    int jobs = random.nextInt(4);
    for (int i = 0; i < jobs; i++) {
      body.append(i > 0 ? "," : "").append(space()).append(randomJob()).append(space());
    }
    body.append(']').append(space());
    if (random.nextInt(20) == 0) {
      body.append(",\"extra\":1");
    }
    return body.append('}').append(space()).toString();
  }

  private String randomJob() {
    List<String> fields = new ArrayList<>();
    if (random.nextInt(20) != 0) {
      fields.add("\"type\"" + colon() + randomName());
    }
    if (random.nextInt(20) != 0) {
      fields.add("\"queue\"" + colon() + randomName());
    }
    if (random.nextInt(20) != 0) {
      fields.add("\"payload\"" + colon() + randomValue(0));
    }
    if (random.nextInt(3) == 0) {
      fields.add("\"priority\"" + colon() + (random.nextInt(3) != 0
          ? pick("0", "1", "32768", "65535")
          : pick("65536", "-1", "007", "1.0", "1e2", "null", "\"5\"", "99999999999999999999")));
    }
    if (random.nextInt(15) == 0) {
      fields.add(pick("\"ready_at\":0", "\"retry_limit\":3", "\"unknown\":[1]", "\"type\":\"t\"",
          "\"payload\":1", "\"budgets\":[]", "\"unique_key\":null"));
    }
    java.util.Collections.shuffle(fields, random);
    StringBuilder job = new StringBuilder("{");
    for (int i = 0; i < fields.size(); i++) {
      job.append(i > 0 ? "," + space() : space()).append(fields.get(i));
    }
    return job.append(space()).append('}').toString();
  }

  private String randomName() {
    return random.nextInt(4) != 0 ? pick("\"t\"", "\"bench\"", "\"q.1-x_y:z\"", "\"x/y\"")
        : pick("\"\"", "\"a,b\"", "\"a b\"", "\"caf\u00e9\"", "\"a*b\"", "\"tab\\tname\"", "null",
            "1", "\"" + "n".repeat(300) + "\"", "\"emoji\ud83d\ude00\"", "\"a\\\"b\"");
  }

  private String randomValue(int depth) {
    if (random.nextInt(40) == 0) {
      return pick("nul", "True", "1e3", "1E-2", "01", "-", "1.", ".5", "2.5e+1", "\"a\tb\"",
          "\"bad \\x escape\"", "\"\\u12g4\"", "[ ]", "{ }", "[1,]", "{\"a\"}");
    }
    int kind = random.nextInt(depth > 4 ? 5 : 8);
    return switch (kind) {
      case 0 -> pick("null", "true", "false");
      case 1 -> pick("0", "-0", "1", "-17", "3.25", "0.5", "123456789012345678901234567890");
      case 2, 3 -> randomString();
      case 4 -> pick("{}", "[]");
      case 5, 6 -> container('[', ']', depth);
      default -> container('{', '}', depth);
    };
  }

  private String container(char open, char close, int depth) {
    StringBuilder out = new StringBuilder().append(open);
    int entries = random.nextInt(4);
    for (int i = 0; i < entries; i++) {
      out.append(i > 0 ? "," : "").append(random.nextInt(100) == 0 ? " " : "");
      if (open == '{') {
        out.append(random.nextInt(40) == 0 ? "k" : randomString()).append(':');
      }
      out.append(randomValue(depth + 1));
    }
    return out.append(close).toString();
  }

  private String randomString() {
    return pick("\"\"", "\"plain text\"", "\"\\\"quoted\\\"\"", "\"back\\\\slash\"",
        "\"caf\u00e9\"", "\"\u2603\"", "\"\ud83d\ude00\"", "\"\\u00e9\\n\"", "\"/\\/\"",
        "\"\u007f\"");
  }

  private String plainJob() {
    return "{\"type\":\"bench\",\"queue\":\"q\",\"payload\":" + pick(PAYLOADS)
        + (random.nextBoolean() ? ",\"priority\":" + random.nextInt(65_536) : "") + "}";
  }

  private String plainBulk() {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    int jobs = 1 + random.nextInt(3);
    for (int i = 0; i < jobs; i++) {
      body.append(i > 0 ? "," : "").append(plainJob());
    }
    return body.append("]}").toString();
  }

  /** One to three random edits (BodyEdits). */
  private byte[] corrupt(byte[] body) {
    byte[] special = utf8("{}[]\":,.-+0123456789eEtfnul\\ \t\nxu");
    byte[] out = body;
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits && out.length > 1; e++) {
      out = BodyEdits.edit(random, out, special);
    }
    return out;
  }

  private String colon() {
    return space() + ":" + space();
  }

  private String space() {
    return random.nextInt(6) == 0 ? pick(" ", "\n", "\t", "\r\n", "  ") : "";
  }

  private String pick(String... options) {
    return options[random.nextInt(options.length)];
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
