package io.sluice.client;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;

/**
 * Every timestamp and duration on the wire is integer milliseconds (API.md §3.5); this maps them
 * to {@link Instant} and {@link Duration} without pulling in the JSR-310 module.
 */
final class EpochMillisModule extends SimpleModule {
  EpochMillisModule() {
    super("sluice-epoch-millis");
    addSerializer(Instant.class, new StdScalarSerializer<>(Instant.class) {
      @Override
      public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider)
          throws IOException {
        gen.writeNumber(value.toEpochMilli());
      }
    });
    addDeserializer(Instant.class, new StdScalarDeserializer<>(Instant.class) {
      @Override
      public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return Instant.ofEpochMilli(p.getValueAsLong());
      }
    });
    addSerializer(Duration.class, new StdScalarSerializer<>(Duration.class) {
      @Override
      public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider)
          throws IOException {
        gen.writeNumber(value.toMillis());
      }
    });
    addDeserializer(Duration.class, new StdScalarDeserializer<>(Duration.class) {
      @Override
      public Duration deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        return Duration.ofMillis(p.getValueAsLong());
      }
    });
  }
}
