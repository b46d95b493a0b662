package io.sluice.api.wire;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/** The two body encodings of the API, each with the Jackson mapper that reads and writes it. */
public enum Format {
  JSON("application/json", "invalid JSON: ", new ObjectMapper()),
  MSGPACK("application/msgpack", "invalid MessagePack: ", new ObjectMapper(new MessagePackFactory()));

  private final String mediaType;
  private final String decodeErrorPrefix;
  private final ObjectMapper mapper;

  Format(String mediaType, String decodeErrorPrefix, ObjectMapper mapper) {
    this.mediaType = mediaType;
    this.decodeErrorPrefix = decodeErrorPrefix;
    this.mapper = mapper.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  }

  public String mediaType() {
    return mediaType;
  }

  /** Prefix of a 400 message for a body that cannot be decoded in this format. */
  public String decodeErrorPrefix() {
    return decodeErrorPrefix;
  }

  public ObjectMapper mapper() {
    return mapper;
  }
}
