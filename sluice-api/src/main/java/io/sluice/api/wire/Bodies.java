package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

/**
 * The checks every request body passes before any parser reads it, and the decoding of the
 * bodies that are read whole. Stateless; any thread.
 */
public final class Bodies {
  private Bodies() {}

  /**
   * Returns {@code bytes} once they are strict UTF-8 text ({@link JsonText}) or a MessagePack
   * document within the JSON data model whose strings are ({@link MsgpackValidator}); throws a
   * {@link BodyException} naming the offending field otherwise.
   */
  public static byte[] checked(Format format, byte[] bytes) {
    if (format == Format.MSGPACK) {
      MsgpackValidator.check(bytes);
    } else {
      JsonText.check(bytes);
    }
    return bytes;
  }

  /** The document tree of a body that passed {@link #checked}. */
  public static JsonNode tree(Format format, byte[] bytes) {
    try (JsonParser parser = format.mapper().createParser(bytes)) {
      JsonNode node = format.mapper().readTree(parser);
      if (node == null || node.isMissingNode()) {
        throw new BodyException(format, "empty body");
      }
      // MessagePack trailing data was refused by MsgpackValidator already.
      if (format == Format.JSON && parser.nextToken() != null) {
        throw new BodyException(format, "trailing content after the document");
      }
      return node;
    } catch (JsonProcessingException e) {
      throw BodyException.from(format, e);
    } catch (IOException e) {
      throw new BodyException(format, String.valueOf(e.getMessage()));
    } catch (NumberFormatException e) {
      // A decimal whose exponent overflows (1e9999999999): Jackson's BigDecimal cannot hold it.
      throw new BodyException(format, String.valueOf(e.getMessage()));
    }
  }
}
