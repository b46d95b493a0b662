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
   * The body of {@code POST /jobs/success}, {@code {"ids":[…]}}, written straight to a generator:
   * a worker sends one per batch, and the data-binding path cost more than the ids themselves.
   */
  byte[] encodeIds(WireFormat format, Collection<String> ids) {
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

  /** Converts a payload tree into the handler's type. */
  <T> T convert(JsonNode payload, JavaType type) throws IOException {
    return json.readerFor(type).readValue(json.treeAsTokens(payload));
  }
}
