package io.sluice.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.client.model.Job;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Finds the handler for a job's type and maps the payload to the type it expects. */
final class HandlerRegistry {
  private record Route(JavaType payloadType, JobHandler<Object> handler) {}

  private final Map<String, Route> routes = new ConcurrentHashMap<>();
  private final WireCodec codec;
  private volatile JobHandler<JsonNode> fallback = HandlerRegistry::rejectUnknownType;

  HandlerRegistry(WireCodec codec) {
    this.codec = codec;
  }

  @SuppressWarnings("unchecked")
  <T> void register(String type, Class<T> payloadType, JobHandler<T> handler) {
    routes.put(type, new Route(codec.json().constructType(payloadType),
        (JobHandler<Object>) handler));
  }

  void fallback(JobHandler<JsonNode> handler) {
    this.fallback = handler;
  }

  void handle(Job job) throws Exception {
    Route route = routes.get(job.type());
    if (route == null) {
      fallback.handle(job.payload(), job);
      return;
    }
    Object payload = codec.convert(job.payload(), route.payloadType());
    route.handler().handle(payload, job);
  }

  private static void rejectUnknownType(JsonNode payload, Job job) {
    throw new IllegalStateException("no handler for job type '" + job.type()
        + "' on this worker; register one with Worker.handle or set a fallback");
  }
}
