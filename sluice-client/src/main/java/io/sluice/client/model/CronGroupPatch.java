package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A merge patch of a cron group's settings (API.md §9.2). */
public final class CronGroupPatch {
  private final ObjectNode body = JsonNodeFactory.instance.objectNode();

  private CronGroupPatch() {}

  public static CronGroupPatch create() {
    return new CronGroupPatch();
  }

  public CronGroupPatch paused(boolean paused) {
    body.put("paused", paused);
    return this;
  }

  /** An IANA zone such as {@code Europe/Rome}. */
  public CronGroupPatch timezone(String zone) {
    body.put("timezone", zone);
    return this;
  }

  /** Entries without a zone of their own fall back to the server's zone. */
  public CronGroupPatch clearTimezone() {
    body.putNull("timezone");
    return this;
  }

  @JsonValue
  public ObjectNode body() {
    return body.deepCopy();
  }
}
