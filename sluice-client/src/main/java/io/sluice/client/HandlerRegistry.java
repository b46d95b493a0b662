package io.sluice.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.client.model.Job;
import io.sluice.client.model.Settlement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Finds the handler for a job's type and maps the payload to the type it expects. */
final class HandlerRegistry {
  private record Route(JavaType payloadType, CostedJobHandler<Object> handler) {}

  private final Map<String, Route> routes = new ConcurrentHashMap<>();
  private final WireCodec codec;
  private volatile JobHandler<JsonNode> fallback = HandlerRegistry::rejectUnknownType;

  HandlerRegistry(WireCodec codec) {
    this.codec = codec;
  }

  <T> void register(String type, Class<T> payloadType, JobHandler<T> handler) {
    registerCosted(type, payloadType, (payload, job) -> {
      handler.handle(payload, job);
      return List.of();
    });
  }

  @SuppressWarnings("unchecked")
  <T> void registerCosted(String type, Class<T> payloadType, CostedJobHandler<T> handler) {
    routes.put(type, new Route(codec.json().constructType(payloadType),
        (CostedJobHandler<Object>) handler));
  }

  void fallback(JobHandler<JsonNode> handler) {
    this.fallback = handler;
  }

  /** Runs the job's handler; returns what it reported the job really cost (often nothing). */
  List<Settlement> handle(Job job) throws Exception {
    Route route = routes.get(job.type());
    if (route == null) {
      fallback.handle(job.payload(), job);
      return List.of();
    }
    Object payload = codec.convert(job.payload(), route.payloadType());
    return route.handler().handle(payload, job);
  }

  private static void rejectUnknownType(JsonNode payload, Job job) {
    throw new IllegalStateException("no handler for job type '" + job.type()
        + "' on this worker; register one with Worker.handle or set a fallback");
  }
}
