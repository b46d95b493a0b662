package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.client.model.BudgetPolicy;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobPatch;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Range;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** Error statuses become typed exceptions carrying the server's message (API.md §3.6). */
class ErrorMappingTest extends SharedServerTest {
  private static void assertFails(ThrowingCallable call, Class<? extends SluiceException> type,
      int status, String message) {
    assertThatThrownBy(call).isInstanceOf(type).satisfies(e -> {
      SluiceException error = (SluiceException) e;
      assertThat(error.status()).isEqualTo(status);
      assertThat(error.serverMessage()).isEqualTo(message);
    });
  }

  @Test
  void notFound() {
    assertFails(() -> client.jobs().get("nosuchjob"), NotFoundException.class, 404,
        "job not found");
    assertFails(() -> client.budgets().get("nope"), NotFoundException.class, 404,
        "budget 'nope' not found");
    assertFails(() -> client.jobs().ack("nosuchjob"), NotFoundException.class, 404,
        "job not found in in-flight set");
  }

  @Test
  void conflict() {
    String key = TestServer.uniqueName("dup");
    client.budgets().create(key, BudgetPolicy.concurrency(1));
    assertFails(() -> client.budgets().create(key, BudgetPolicy.concurrency(1)),
        ConflictException.class, 409, "budget '" + key + "' already exists");
  }

  @Test
  void badRequest() {
    assertFails(() -> client.jobs().enqueue(EnqueueRequest.builder("a,b", "t", null).build()),
        ValidationException.class, 400, "queue must not contain ','");
    assertFails(() -> client.jobs().list(JobQuery.all().limit(5000)),
        ValidationException.class, 400, "limit must be between 1 and 2000");
    assertFails(() -> client.jobs().list(JobQuery.all().ids("NOT-AN-ID")),
        ValidationException.class, 400, "invalid job ID: \"NOT-AN-ID\"");
    assertThatThrownBy(() -> client.jobs().count(JobQuery.all().filter(".[")))
        .isInstanceOf(ValidationException.class)
        .satisfies(e -> assertThat(((SluiceException) e).serverMessage())
            .startsWith("invalid filter: "));
  }

  @Test
  void unprocessable() {
    String queue = TestServer.uniqueName("terminal");
    String id = client.jobs().enqueue(EnqueueRequest.builder(queue, "t", null).build()).id();
    try (TakeStream stream = client.jobs().take(List.of(queue), 1, null)) {
      stream.next();
      client.jobs().fail(id, FailureReport.of("x").killed());
    }
    assertFails(() -> client.jobs().patch(id, JobPatch.create().priority(1)),
        ValidationException.class, 422, "cannot patch job " + id + " in dead status");
    assertFails(() -> client.jobs().patchAll(JobQuery.all().statuses(JobStatus.DEAD),
        JobPatch.create()), ValidationException.class, 422,
        "cannot patch jobs in dead status");
  }

  @Test
  void unreachableServerIsAConnectionException() {
    SluiceClient nowhere = SluiceClient.builder("http://127.0.0.1:1")
        .connectTimeout(Duration.ofSeconds(1)).build();
    assertThatThrownBy(nowhere::health).isInstanceOf(ConnectionException.class)
        .satisfies(e -> assertThat(((SluiceException) e).status()).isZero());
  }

  @Test
  void messagePackClientSpeaksTheSameApi() {
    SluiceClient msgpack = SluiceClient.builder(server.url()).format(WireFormat.MSGPACK).build();
    String queue = TestServer.uniqueName("msgpack");

    Job created = msgpack.jobs().enqueue(
        EnqueueRequest.builder(queue, "work", Map.of("text", "héllo", "n", 3)).priority(5).build());
    assertThat(msgpack.jobs().get(created.id()).payload().get("text").textValue())
        .isEqualTo("héllo");
    assertThat(msgpack.jobs().count(JobQuery.all().queues(queue).priority(Range.exactly(5))))
        .isEqualTo(1);
    try (TakeStream stream = msgpack.jobs().take(List.of(queue), 1, null)) {
      Job taken = stream.next();
      assertThat(taken.id()).isEqualTo(created.id());
      assertThat(taken.payload().get("n").intValue()).isEqualTo(3);
      assertThat(msgpack.jobs().ackAll(List.of(taken.id()))).isEmpty();
    }
    assertFails(() -> msgpack.jobs().get(created.id()), NotFoundException.class, 404,
        "job not found");
  }

  @Test
  void http2CanBeRequested() {
    SluiceClient h2 = SluiceClient.builder(server.url())
        .httpVersion(HttpClient.Version.HTTP_2).build();
    assertThat(h2.health()).isEqualTo("ok");
    assertThat(h2.queues()).isNotNull();
  }
}
