package io.sluice.client;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.sluice.client.model.Job;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/** Object mappers for both body formats, configured alike. */
final class WireCodec {
  private final ObjectMapper json;
  private final ObjectMapper msgpack;

  WireCodec() {
    this.json = configure(new ObjectMapper(new JsonFactory()));
    this.msgpack = configure(new ObjectMapper(new MessagePackFactory()));
  }

  private static ObjectMapper configure(ObjectMapper mapper) {
    // Newer servers may add fields; an old client must keep working.
    mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.registerModule(new EpochMillisModule());
    mapper.registerModule(
        new SimpleModule("sluice-job").addDeserializer(Job.class, new JobDeserializer()));
    return mapper;
  }

  ObjectMapper json() {
    return json;
  }

  ObjectMapper mapper(WireFormat format) {
    return format == WireFormat.MSGPACK ? msgpack : json;
  }

  /** The mapper for a response, by its Content-Type (JSON when absent or unknown). */
  ObjectMapper forContentType(String contentType) {
    return contentType != null && contentType.contains("msgpack") ? msgpack : json;
  }

  byte[] encode(WireFormat format, Object body) {
    try {
      return mapper(format).writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode request body", e);
    }
  }

  /**
   * The body of {@code POST /jobs/success}, {@code {"ids":[…]}}: a worker sends one per batch.
   * Ids as the server makes them (printable ASCII needing no escape) are copied straight into
   * JSON; anything else goes through a generator.
   */
  byte[] encodeIds(WireFormat format, Collection<String> ids) {
    if (format == WireFormat.JSON && ids.stream().allMatch(WireCodec::plainAscii)) {
      return plainJsonIds(ids);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 + 32 * ids.size());
    try (JsonGenerator generator = mapper(format).getFactory().createGenerator(out)) {
      generator.writeStartObject();
      generator.writeArrayFieldStart("ids");
      for (String id : ids) {
        generator.writeString(id);
      }
      generator.writeEndArray();
      generator.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot encode request body", e);
    }
    return out.toByteArray();
  }

  private static boolean plainAscii(String id) {
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  private static byte[] plainJsonIds(Collection<String> ids) {
    int size = 10; // {"ids":[]}
    for (String id : ids) {
      size += id.length() + 3; // quotes and comma
    }
    byte[] out = new byte[size - (ids.isEmpty() ? 0 : 1)];
    int at = put(out, 0, "{\"ids\":[");
    boolean first = true;
    for (String id : ids) {
      if (!first) {
        out[at++] = ',';
      }
      first = false;
      out[at++] = '"';
      at = put(out, at, id);
      out[at++] = '"';
    }
    put(out, at, "]}");
    return out;
  }

  private static int put(byte[] out, int at, String ascii) {
    for (int i = 0; i < ascii.length(); i++) {
      out[at++] = (byte) ascii.charAt(i);
    }
    return at;
  }

  /** Converts a payload tree into the handler's type. */
  <T> T convert(JsonNode payload, JavaType type) throws IOException {
    return json.readerFor(type).readValue(json.treeAsTokens(payload));
  }
}
