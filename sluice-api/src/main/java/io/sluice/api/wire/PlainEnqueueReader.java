package io.sluice.api.wire;

import io.sluice.engine.Names;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads the commonest enqueue bodies in one pass over their bytes: JSON jobs with nothing but a
 * {@code type}, a {@code queue}, a {@code payload} written compactly (as JavaScript's
 * {@code JSON.stringify} and most Java encoders write it; Python's {@code json.dumps} puts spaces
 * after its commas and colons, and such payloads take the other path) and perhaps a
 * {@code priority}, whose names are printable ASCII and valid. Each payload is checked
 * as it is scanned and copied as it came, which is what {@link EnqueueParser} makes of such a
 * payload too, and the jobs of one request share their type and queue strings.
 *
 * <p>Anything else, including every body that is not valid JSON, makes it answer null, and the
 * caller reads the body with Jackson, which accepts what this accepts and names every problem.
 * So this reader never decides an error and never draws an id for a body it gives up on. It
 * gives up on: whitespace or an exponent inside a payload (re-encoded by the other path), escapes
 * in field names, control characters in strings (which JSON forbids), other fields, repeated
 * fields, {@code null} values, names that {@link Names} refuses, an empty job list, a payload
 * nested deeper than {@value #MAX_DEPTH} levels or with a key longer than
 * {@value #MAX_KEY_BYTES} bytes (well inside Jackson's read limits).
 */
final class PlainEnqueueReader extends PlainScanner {
  private static final int MAX_DEPTH = 64;
  private static final int MAX_KEY_BYTES = 1024;
  private static final byte[] JOBS = ascii("jobs");
  private static final byte[] TYPE = ascii("type");
  private static final byte[] QUEUE = ascii("queue");
  private static final byte[] PAYLOAD = ascii("payload");
  private static final byte[] PRIORITY = ascii("priority");
  private static final byte[][] FIELD_NAMES = {TYPE, QUEUE, PAYLOAD, PRIORITY};
  private static final long QUOTES = 0x2222222222222222L;
  private static final long SPACES = 0x2020202020202020L;

  private final List<String> types = new ArrayList<>();
  private final List<String> queues = new ArrayList<>();
  private final List<byte[]> payloads = new ArrayList<>();
  private int[] priorities = new int[16];

  private PlainEnqueueReader(byte[] body) {
    super(body);
  }

  /** The jobs of a bulk body ({@code {"jobs":[...]}}), or null when it is not plain. */
  static List<NewJob> readBulk(byte[] body, Supplier<JobId> ids) {
    PlainEnqueueReader reader = new PlainEnqueueReader(body);
    return reader.scanned(reader::bulk) ? reader.jobs(ids) : null;
  }

  /** The job of a single enqueue body, or null when it is not plain. */
  static NewJob readOne(byte[] body, Supplier<JobId> ids) {
    PlainEnqueueReader reader = new PlainEnqueueReader(body);
    return reader.scanned(reader::one) ? reader.jobs(ids).get(0) : null;
  }

  private List<NewJob> jobs(Supplier<JobId> ids) {
    List<NewJob> jobs = new ArrayList<>(types.size());
    for (int i = 0; i < types.size(); i++) {
      jobs.add(new NewJob(ids.get(), types.get(i), queues.get(i), priorities[i], null, null, null,
          null, payloads.get(i), List.of(), null, null));
    }
    return jobs;
  }

  private void bulk() {
    soleArrayField(JOBS, this::job);
  }

  private void one() {
    skipSpace();
    job();
    end();
  }

  /** One job object, its fields in any order; at most once each. */
  private void job() {
    expect('{');
    String type = null;
    String queue = null;
    byte[] payload = null;
    int priority = -1;
    do {
      skipSpace();
      byte[] name = fieldName();
      skipSpace();
      expect(':');
      skipSpace();
      if (name == TYPE && type == null) {
        type = name(types, "type");
      } else if (name == QUEUE && queue == null) {
        queue = name(queues, "queue");
      } else if (name == PAYLOAD && payload == null) {
        int start = at;
        value(0);
        payload = Arrays.copyOfRange(body, start, at);
      } else if (name == PRIORITY && priority < 0) {
        priority = priority();
      } else {
        throw NOT_PLAIN;
      }
      skipSpace();
    } while (accept(','));
    expect('}');
    if (type == null || queue == null || payload == null) {
      throw NOT_PLAIN;
    }
    int index = types.size();
    if (index == priorities.length) {
      priorities = Arrays.copyOf(priorities, index * 2);
    }
    types.add(type);
    queues.add(queue);
    payloads.add(payload);
    priorities[index] = priority < 0 ? NewJob.DEFAULT_PRIORITY : priority;
  }

  /**
   * Which known field name is at the cursor (the constant itself), past its closing quote. Any
   * other name, or one written with an escape, gives up.
   */
  private byte[] fieldName() {
    int start = printableString();
    for (byte[] known : FIELD_NAMES) {
      if (stringIs(start, known)) {
        return known;
      }
    }
    throw NOT_PLAIN;
  }

  /**
   * A type or queue name: printable ASCII without quote or backslash, and valid. The previous
   * job's string is reused when the bytes are the same, as they mostly are within one request.
   */
  private String name(List<String> earlier, String field) {
    int start = printableString();
    int length = at - 1 - start;
    if (!earlier.isEmpty()) {
      String previous = earlier.get(earlier.size() - 1);
      if (sameAscii(previous, start, length)) {
        return previous;
      }
    }
    String name = new String(body, start, length, StandardCharsets.ISO_8859_1);
    if (Names.violation(field, name) != null) {
      throw NOT_PLAIN;
    }
    return name;
  }

  private boolean sameAscii(String text, int start, int length) {
    if (text.length() != length) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      if (text.charAt(i) != body[start + i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * A priority: an integer from 0 to 65,535 without sign or leading zero (a fraction or exponent
   * after it is refused by the caller, which expects a separator next).
   */
  private int priority() {
    int start = at;
    int value = 0;
    while (isDigit(body[at])) {
      value = value * 10 + (body[at++] - '0');
      if (value > EnqueueParser.MAX_PRIORITY) {
        throw NOT_PLAIN;
      }
    }
    boolean leadingZero = body[start] == '0' && at - start > 1;
    if (at == start || leadingZero) {
      throw NOT_PLAIN;
    }
    return value;
  }

  /** Scans one compact JSON value, checking it; {@code depth} is the containers around it. */
  private void value(int depth) {
    switch (body[at]) {
      case '{' -> container('}', depth);
      case '[' -> container(']', depth);
      case '"' -> string(Integer.MAX_VALUE);
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> number();
    }
  }

  private void container(char close, int depth) {
    if (depth == MAX_DEPTH) {
      throw NOT_PLAIN;
    }
    at++;
    if (accept(close)) {
      return;
    }
    do {
      if (close == '}') {
        if (body[at] != '"') {
          throw NOT_PLAIN;
        }
        string(MAX_KEY_BYTES);
        expect(':');
      }
      value(depth + 1);
    } while (accept(','));
    expect(close);
  }

  /** A string whose quotes hold at most {@code maxBytes} bytes; the body is UTF-8 already. */
  private void string(int maxBytes) {
    byte[] text = body;
    int start = at + 1;
    int i = skipPlainWords(text, start);
    for (byte b = text[i]; b != '"'; b = text[i]) {
      if (b == '\\') {
        at = i;
        escape();
        i = at;
      } else if (b >= 0 && b < 0x20) {
        throw NOT_PLAIN;
      } else {
        i++;
      }
    }
    if (i - start > maxBytes) {
      throw NOT_PLAIN;
    }
    at = i + 1;
  }

  /**
   * Skips whole 8-byte words holding no quote, backslash or control character, eight bytes a
   * step (SWAR: a byte of {@code x} is zero, or below 0x20, where {@code (x - 0x01..) & ~x} or
   * {@code (x - 0x20..) & ~x} has its high bit); returns where the byte-by-byte scan goes on.
   */
  private static int skipPlainWords(byte[] text, int from) {
    int i = from;
    while (i + 8 <= text.length) {
      long word = (long) Utf8.WORDS.get(text, i);
      long quotes = word ^ QUOTES;
      long backslashes = word ^ Utf8.BACKSLASHES;
      long special = ((quotes - Utf8.LOW_BITS) & ~quotes)
          | ((backslashes - Utf8.LOW_BITS) & ~backslashes) | ((word - SPACES) & ~word);
      if ((special & Utf8.HIGH_BITS) != 0) {
        return i;
      }
      i += 8;
    }
    return i;
  }

  private void escape() {
    byte escaped = body[at + 1];
    switch (escaped) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> at += 2;
      case 'u' -> {
        for (int i = at + 2; i < at + 6; i++) {
          if (Character.digit(body[i], 16) < 0) {
            throw NOT_PLAIN;
          }
        }
        at += 6;
      }
      default -> throw NOT_PLAIN;
    }
  }

  private void literal(String word) {
    for (int i = 0; i < word.length(); i++) {
      if (body[at + i] != word.charAt(i)) {
        throw NOT_PLAIN;
      }
    }
    at += word.length();
  }

  /**
   * {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?}: JSON's number without an exponent. Whatever follows
   * must be a separator, which the caller expects, so {@code 01} or {@code 1e5} is refused there.
   */
  private void number() {
    accept('-');
    if (body[at] == '0') {
      at++;
    } else if (isDigit(body[at])) {
      skipDigits();
    } else {
      throw NOT_PLAIN;
    }
    if (accept('.')) {
      if (!isDigit(body[at])) {
        throw NOT_PLAIN;
      }
      skipDigits();
    }
  }

  private void skipDigits() {
    while (isDigit(body[at])) {
      at++;
    }
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }
}
