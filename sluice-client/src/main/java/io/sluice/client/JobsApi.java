package io.sluice.client;

import static io.sluice.client.UrlParts.query;
import static io.sluice.client.UrlParts.segment;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.type.TypeFactory;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorQuery;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.FailureReport;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobWait;
import io.sluice.client.model.JobPatch;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.Page;
import io.sluice.client.model.Settlement;
import java.io.InputStream;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/** The job endpoints: enqueue, read, query, change and delete jobs, and the worker protocol. */
public final class JobsApi {
  private static final String ACK_PATH = "/jobs/success";

  private final HttpTransport transport;

  JobsApi(HttpTransport transport) {
    this.transport = transport;
  }

  /** {@code POST /jobs}. A unique-key duplicate or a batch fold returns the existing job. */
  public Job enqueue(EnqueueRequest request) {
    return transport.call("POST", "/jobs", request, Job.class);
  }

  /** {@code POST /jobs/bulk}: all or nothing; results in request order. */
  public List<Job> enqueueAll(List<EnqueueRequest> requests) {
    return transport.call("POST", "/jobs/bulk", new WireBodies.BulkEnqueue(requests),
        WireBodies.JobList.class).jobs();
  }

  public Job get(String id) {
    return transport.call("GET", "/jobs/" + segment(id), null, Job.class);
  }

  /** Why the job is not running yet, and when it could (Sluice X2, {@code GET /jobs/{id}/wait}). */
  public JobWait waitReason(String id) {
    return transport.call("GET", "/jobs/" + segment(id) + "/wait", null, JobWait.class);
  }

  /** One page of {@code GET /jobs}. */
  public Page<Job> list(JobQuery query) {
    return page(jobsPath("/jobs", query.listParameters()));
  }

  /** The page behind a {@code next}/{@code prev} link of an earlier page. */
  public Page<Job> page(String link) {
    return transport.call("GET", link, null, WireBodies.JobPage.class).toPage();
  }

  /** Every matching job, fetching page after page as the iteration advances. */
  public Iterable<Job> all(JobQuery query) {
    return () -> new PageIterator<>(list(query), this::page);
  }

  public Stream<Job> stream(JobQuery query) {
    return StreamSupport.stream(all(query).spliterator(), false);
  }

  public long count(JobQuery query) {
    return transport.call("GET", jobsPath("/jobs/count", query.filterParameters()), null,
        WireBodies.Count.class).count();
  }

  /** {@code PATCH /jobs/{id}}; returns the job without payload. */
  public Job patch(String id, JobPatch patch) {
    return transport.call("PATCH", "/jobs/" + segment(id), patch, Job.class);
  }

  /** {@code PATCH /jobs}: patches every matching non-terminal job; returns how many. */
  public long patchAll(JobQuery query, JobPatch patch) {
    return transport.call("PATCH", jobsPath("/jobs", query.filterParameters()), patch,
        WireBodies.Patched.class).patched();
  }

  public void delete(String id) {
    transport.call("DELETE", "/jobs/" + segment(id), null);
  }

  /** {@code DELETE /jobs}. With {@link JobQuery#all()} this deletes every job. */
  public long deleteAll(JobQuery query) {
    return transport.call("DELETE", jobsPath("/jobs", query.filterParameters()), null,
        WireBodies.Deleted.class).deleted();
  }

  public Page<ErrorRecord> errors(String id, ErrorQuery query) {
    return errorPage("/jobs/" + segment(id) + "/errors" + query(query.parameters()));
  }

  public Page<ErrorRecord> errorPage(String link) {
    return transport.call("GET", link, null, WireBodies.ErrorPage.class).toPage();
  }

  /** All of a job's error records, oldest attempt first. */
  public Stream<ErrorRecord> streamErrors(String id) {
    Iterable<ErrorRecord> all =
        () -> new PageIterator<>(errors(id, ErrorQuery.all()), this::errorPage);
    return StreamSupport.stream(all.spliterator(), false);
  }

  public ErrorRecord error(String id, int attempt) {
    return transport.call("GET", "/jobs/" + segment(id) + "/errors/" + attempt, null,
        ErrorRecord.class);
  }

  /**
   * Opens {@code GET /jobs/take} on {@code queues} (empty: all queues) holding at most
   * {@code prefetch} unfinished jobs (0: unlimited). {@code workerId} may be null. The stream has
   * a connection of its own, always HTTP/1.1. A cluster node that is not the leader and names it
   * (a {@code 503} with the leader, or a redirect) has the stream opened on the leader at once; a
   * {@code 503} without a leader is thrown as an {@link UnavailableException} with its
   * {@code Retry-After}.
   */
  public TakeStream take(Collection<String> queues, int prefetch, String workerId) {
    Map<String, String> params = new LinkedHashMap<>();
    if (!queues.isEmpty()) {
      params.put("queue", String.join(",", queues));
    }
    params.put("prefetch", Integer.toString(prefetch));
    String target = "/jobs/take" + query(params);
    String what = "GET " + target;
    for (int hops = 0; ; ) {
      String base = transport.baseUrl();
      Http1Connection connection = transport.connect(base, what);
      HttpTransport.Reply refusal;
      try {
        Http1Connection.Head head = connection.openStream(target,
            transport.format().streamMediaType(), workerId, transport.requestTimeout());
        InputStream body = connection.body(head);
        String contentType = head.header("content-type");
        if (head.status() == 200) {
          boolean msgpack = contentType != null && contentType.contains("msgpack");
          return new TakeStream(body, connection, msgpack,
              transport.codec().mapper(msgpack ? WireFormat.MSGPACK : WireFormat.JSON));
        }
        refusal = new HttpTransport.Reply(head.status(), contentType, body.readAllBytes(),
            head.header("location"), head.header("retry-after"));
      } catch (IOException e) {
        connection.close();
        throw new ConnectionException(what, e);
      } catch (RuntimeException e) {
        connection.close(); // e.g. a worker id that cannot be a header value
        throw e;
      }
      connection.close();
      String leader = transport.leaderToFollow(refusal, base, target, what);
      if (leader == null) {
        throw transport.failure("GET", target, refusal);
      }
      hops = transport.hop(hops, what, refusal, leader);
      transport.adopt(leader);
    }
  }

  /** {@code POST /jobs/{id}/success}. */
  public void ack(String id) {
    transport.call("POST", "/jobs/" + segment(id) + "/success", null);
  }

  /**
   * {@code POST /jobs/{id}/success} settling what the job really cost on its budgets (X5). A
   * settlement naming a budget the job is not bound to is refused, and the job stays in flight.
   */
  public void ack(String id, Settlement... settlements) {
    transport.call("POST", "/jobs/" + segment(id) + "/success",
        new WireBodies.Settling(List.of(settlements)));
  }

  /**
   * {@code POST /jobs/success}: completes every listed job still in flight and returns the ids
   * that were not (already finished, requeued or deleted).
   */
  public List<String> ackAll(Collection<String> ids) {
    return notFound(transport.exchange("POST", ACK_PATH, new WireBodies.Ids(ids)));
  }

  /**
   * {@link #ackAll(Collection)} settling the jobs {@code settlements} names, by id, each of
   * which must be among {@code ids} (X5). Any refused settlement acknowledges nothing.
   */
  public List<String> ackAll(Collection<String> ids, Map<String, List<Settlement>> settlements) {
    List<WireBodies.JobSettlement> bodies = settlements.entrySet().stream()
        .map(e -> new WireBodies.JobSettlement(e.getKey(), List.copyOf(e.getValue())))
        .toList();
    return notFound(transport.exchange("POST", ACK_PATH,
        new WireBodies.SettlingIds(ids, bodies)));
  }

  /** A connection of the worker transport for {@link #ackAll}, for one thread's use. */
  AckChannel ackChannel() {
    return new AckChannel(transport, ACK_PATH, this::notFound);
  }

  List<String> notFound(HttpTransport.Reply reply) {
    if (reply.status() == 422) {
      JavaType type = TypeFactory.defaultInstance().constructType(WireBodies.NotFound.class);
      WireBodies.NotFound notFound = transport.decode("POST", ACK_PATH, reply, type);
      if (notFound.notFound() != null) {
        return notFound.notFound();
      }
    }
    if (!reply.ok()) {
      throw transport.failure("POST", ACK_PATH, reply);
    }
    return List.of();
  }

  /**
   * {@code POST /jobs/{id}/failure}; returns the job as rescheduled or dead, or, for a throttled
   * report (X6), ready again with its attempts unchanged.
   */
  public Job fail(String id, FailureReport report) {
    return transport.call("POST", "/jobs/" + segment(id) + "/failure", report, Job.class);
  }

  /** {@link #fail(String, FailureReport)} settling what the attempt really cost (X5). */
  public Job fail(String id, FailureReport report, Settlement... settlements) {
    return transport.call("POST", "/jobs/" + segment(id) + "/failure",
        new WireBodies.SettlingFailure(report, List.of(settlements)), Job.class);
  }

  private static String jobsPath(String path, Map<String, String> params) {
    return path + query(params);
  }
}
