package io.sluice.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One JSON object per log line, shaped as CLI.md §7 asks: {@code timestamp}, {@code level},
 * {@code fields.message} (plus {@code fields.error} for a stack trace) and {@code target}.
 */
final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {
  @Override
  public byte[] headerBytes() {
    return null;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(160);
    line.append("{\"timestamp\":\"").append(Instant.ofEpochMilli(event.getTimeStamp()))
        .append("\",\"level\":\"").append(event.getLevel())
        .append("\",\"fields\":{\"message\":");
    quote(line, event.getFormattedMessage());
    if (event.getThrowableProxy() != null) {
      line.append(",\"error\":");
      quote(line, ThrowableProxyUtil.asString(event.getThrowableProxy()));
    }
    line.append("},\"target\":");
    quote(line, event.getLoggerName());
    line.append(",\"thread\":");
    quote(line, event.getThreadName());
    line.append("}\n");
    return line.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public byte[] footerBytes() {
    return null;
  }

  private static void quote(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
