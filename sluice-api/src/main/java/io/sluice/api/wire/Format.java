package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/** The two body encodings of the API, each with the Jackson mapper that reads and writes it. */
public enum Format {
  JSON("application/json", "invalid JSON: ", new ObjectMapper(unbounded(new JsonFactory()))),
  MSGPACK("application/msgpack", "invalid MessagePack: ",
      new ObjectMapper(unbounded(new MessagePackFactory())));

  /**
   * Bodies of at least 64 MiB must be accepted (API.md §2), so Jackson's default caps on string
   * and number lengths (20 M chars, 1000 digits) are lifted; the nesting cap stays.
   */
  public static <F extends JsonFactory> F unbounded(F factory) {
    factory.setStreamReadConstraints(StreamReadConstraints.builder()
        .maxStringLength(Integer.MAX_VALUE)
        .maxNumberLength(Integer.MAX_VALUE)
        .maxDocumentLength(-1)
        .build());
    return factory;
  }

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
