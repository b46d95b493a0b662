package io.sluice.engine.replay;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;

/**
 * Renders engine values as text that is equal exactly when the values are: records field by
 * field (their own {@code equals} and {@code toString} compare and show a {@code byte[]} by
 * identity), byte arrays by content (UTF-8 text in quotes when it decodes, else hex), lists in
 * order, and exceptions by class and message. Maps must be sorted, so that their order is
 * theirs and not a hash table's.
 */
final class Canonical {
  private Canonical() {}

  static String render(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value);
    return out.toString();
  }

  private static void append(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof byte[] bytes) {
      appendBytes(out, bytes);
    } else if (value instanceof String text) {
      out.append('"').append(text).append('"');
    } else if (value instanceof Record record) {
      appendRecord(out, record);
    } else if (value instanceof Collection<?> items) {
      out.append('[');
      String separator = "";
      for (Object item : items) {
        out.append(separator);
        append(out, item);
        separator = ", ";
      }
      out.append(']');
    } else if (value instanceof Map<?, ?> map) {
      if (!(map instanceof SortedMap<?, ?>) && map.size() > 1) {
        throw new IllegalArgumentException("an unsorted map has no canonical order: " + map);
      }
      out.append('{');
      String separator = "";
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        out.append(separator);
        append(out, entry.getKey());
        out.append('=');
        append(out, entry.getValue());
        separator = ", ";
      }
      out.append('}');
    } else if (value instanceof Throwable error) {
      out.append('!').append(error.getClass().getName().replaceFirst("^.*\\.", ""))
          .append(": ").append(error.getMessage());
    } else {
      out.append(value);
    }
  }

  private static void appendBytes(StringBuilder out, byte[] bytes) {
    try {
      String text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
      out.append("b\"").append(text).append('"');
    } catch (CharacterCodingException e) {
      out.append("0x").append(HexFormat.of().formatHex(bytes));
    }
  }

  private static void appendRecord(StringBuilder out, Record record) {
    out.append(record.getClass().getSimpleName()).append('(');
    String separator = "";
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      out.append(separator).append(component.getName()).append('=');
      try {
        component.getAccessor().setAccessible(true);
        append(out, component.getAccessor().invoke(record));
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new IllegalStateException("cannot read " + component, e);
      }
      separator = ", ";
    }
    out.append(')');
  }
}
