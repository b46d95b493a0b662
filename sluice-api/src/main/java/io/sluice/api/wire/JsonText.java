package io.sluice.api.wire;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * Checks the text of a JSON body before Jackson reads it: strict UTF-8 throughout ({@link Utf8})
 * and every {@code \\u} escape of a surrogate half paired with its other half. Jackson's own
 * decoding is lenient: it reads the overlong {@code C0 AF} as {@code /}, turns encoded surrogates
 * and code points above U+10FFFF into lone surrogate chars, and accepts {@code \\ud800}; none of
 * these is Unicode text. Stateless; any thread.
 *
 * <p>The check is one pass over the bytes, eight ASCII bytes at a time; only a failing body is
 * parsed again, to name the field that holds the problem.
 */
public final class JsonText {

  private JsonText() {}

  /** Throws a {@link BodyException} naming the field that holds the first problem, if any. */
  public static void check(byte[] document) {
    int at = problemAt(document);
    if (at >= 0) {
      String problem = document[at] == '\\' ? MalformedText.UNPAIRED_SURROGATE
          : MalformedText.BAD_UTF8;
      throw new BodyException(Format.JSON, locate(document, at, problem));
    }
  }

  /**
   * The offset of the first ill-formed UTF-8 sequence or unpaired surrogate escape (its
   * backslash), or -1. A backslash outside a string is a syntax error that Jackson reports.
   */
  static int problemAt(byte[] document) {
    int end = document.length;
    int i = 0;
    while (i < end) {
      i = skipPlainWords(document, i);
      if (i == end) {
        break;
      }
      byte b = document[i];
      if (b >= 0) {
        if (b != '\\') {
          i++;
        } else if (i + 1 < end && document[i + 1] == 'u') {
          int unit = hex4(document, i + 2);
          if (unit >= 0xD800 && unit <= 0xDBFF) {
            int next = i + 7 < end && document[i + 6] == '\\' && document[i + 7] == 'u'
                ? hex4(document, i + 8) : -1;
            if (next < 0xDC00 || next > 0xDFFF) {
              return i;
            }
            i += 12;
          } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            return i;
          } else {
            i += 2; // a malformed escape is Jackson's to report; its hex digits are ASCII
          }
        } else {
          i += 2;
        }
        continue;
      }
      int length = Utf8.sequenceLength(document, i, end);
      if (length < 0) {
        return i;
      }
      i += length;
    }
    return -1;
  }

  /**
   * Skips whole 8-byte words of ASCII without a backslash, the bulk of most bodies, eight bytes
   * per step; returns where the byte-by-byte scan must go on.
   */
  private static int skipPlainWords(byte[] document, int from) {
    int i = from;
    while (i + 8 <= document.length) {
      long word = (long) Utf8.WORDS.get(document, i);
      long xored = word ^ Utf8.BACKSLASHES;
      // Non-zero when a byte has its high bit set, or (SWAR zero-byte test) is a backslash.
      if (((word | ((xored - Utf8.LOW_BITS) & ~xored)) & Utf8.HIGH_BITS) != 0) {
        return i;
      }
      i += 8;
    }
    return i;
  }

  /** The four hex digits at {@code from} as a number, or -1. */
  private static int hex4(byte[] document, int from) {
    if (from + 4 > document.length) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < from + 4; i++) {
      int digit = Character.digit(document[i], 16);
      if (digit < 0) {
        return -1;
      }
      value = value << 4 | digit;
    }
    return value;
  }

  /**
   * Finds the string that holds offset {@code at} by parsing a copy in which the problem and
   * every non-ASCII byte are replaced with ASCII letters, so byte offsets stay put and Jackson
   * reads it without decoding errors.
   */
  private static String locate(byte[] document, int at, String problem) {
    byte[] ascii = Arrays.copyOf(document, document.length);
    for (int i = 0; i < ascii.length; i++) {
      if (ascii[i] < 0) {
        ascii[i] = 'x';
      }
    }
    if (document[at] == '\\') {
      Arrays.fill(ascii, at, at + 6, (byte) 'x');
    }
    String path = null;
    boolean fieldName = false;
    try (JsonParser parser = Format.JSON.mapper().getFactory().createParser(ascii)) {
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        int start = (int) parser.currentTokenLocation().getByteOffset();
        if (start > at) {
          break;
        }
        boolean holds = (token == JsonToken.FIELD_NAME || token == JsonToken.VALUE_STRING)
            && at < stringEnd(ascii, start);
        if (holds) {
          fieldName = token == JsonToken.FIELD_NAME;
          JsonStreamContext context = parser.getParsingContext();
          path = path(fieldName ? context.getParent() : context);
          break;
        }
      }
    } catch (JacksonException e) {
      // A syntax error before the problem: no string holds it, so its byte offset is given.
    } catch (IOException e) {
      throw new IllegalStateException("reading an array failed", e);
    }
    return MalformedText.describe(problem, path, fieldName, at);
  }

  /** The offset of the closing quote of the string whose opening quote is at {@code start}. */
  private static int stringEnd(byte[] ascii, int start) {
    int i = start + 1;
    while (i < ascii.length && ascii[i] != '"') {
      i += ascii[i] == '\\' ? 2 : 1;
    }
    return i;
  }

  /** The path of the current entry of {@code context}, from the root down. */
  private static String path(JsonStreamContext context) {
    Deque<JsonStreamContext> chain = new ArrayDeque<>();
    for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
      chain.push(c);
    }
    StringBuilder path = new StringBuilder();
    for (JsonStreamContext c : chain) {
      if (c.inObject()) {
        MalformedText.appendName(path, c.getCurrentName());
      } else {
        MalformedText.appendIndex(path, c.getCurrentIndex());
      }
    }
    return path.toString();
  }
}
