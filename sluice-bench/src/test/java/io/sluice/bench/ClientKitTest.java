package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ClientKitTest {

  private final ClientKit kit = new ClientKit(1);

  @AfterEach
  void close() {
    kit.close();
  }

  /**
   * A request chained on a connection after it opened must be sent from the connection's event
   * loop, or Vert.x may lose its response's end (see {@link ClientKit#onContext}).
   */
  @Test
  void whatIsChainedAfterCompletionRunsOnTheContext() {
    Context ctx = kit.context(0);
    Future<String> done = ClientKit.onContext(ctx, () -> Future.succeededFuture("opened"));
    Await.result(done, 10, TimeUnit.SECONDS, "the action");

    Future<Context> chainedIn = done.map(v -> Vertx.currentContext());

    assertThat(Await.result(chainedIn, 10, TimeUnit.SECONDS, "the chained step")).isSameAs(ctx);
  }

  @Test
  void aFailedActionFailsTheFuture() {
    Context ctx = kit.context(0);
    Future<String> failed = ClientKit.onContext(ctx, () -> {
      throw new IllegalStateException("refused");
    });
    Await.quietly(failed, 10_000);

    assertThat(failed.failed()).isTrue();
    assertThat(failed.cause()).hasMessage("refused");
  }
}
