/*
 * The least an HTTP server can do for the peer harness's latency workload (B): it answers
 * POST /jobs at once and writes the job to a waiting take stream, stores nothing, checks nothing.
 * Run through the harness as if it were Sluice, it measures what the harness's HTTP clients cost
 * on their own, the floor under any HTTP job server on this machine. Not a job queue.
 *
 *   cc -O2 -o sluice-bench/floor/floor-server sluice-bench/floor/floor-server.c
 *   SLUICE_PROJECT=sluice-bench/floor ../shared/peers/run.sh sluice --workload B
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FDS 65536
#define MAX_STREAMS 256

typedef struct {
  int fd;
  int length;
  char bytes[65536];
} Connection;

static Connection *connections[MAX_FDS];
static int streams[MAX_STREAMS];
static int stream_count;
static int next_stream;
static unsigned long next_id = 1;

static void on_term(int signal_number) {
  (void) signal_number;
  _exit(0);
}

static void write_all(int fd, const char *data, int length) {
  while (length > 0) {
    int written = write(fd, data, length);
    if (written <= 0) {
      return;
    }
    data += written;
    length -= written;
  }
}

static void respond(int fd, const char *status, const char *body) {
  char out[1024];
  int body_length = strlen(body);
  int length = body_length > 0
      ? snprintf(out, sizeof out, "HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
          "content-length: %d\r\n\r\n%s", status, body_length, body)
      : snprintf(out, sizeof out, "HTTP/1.1 %s\r\n\r\n", status);
  write_all(fd, out, length);
}

static void forget_stream(int fd) {
  for (int i = 0; i < stream_count; i++) {
    if (streams[i] == fd) {
      streams[i] = streams[--stream_count];
      return;
    }
  }
}

/* Hands the job to the next waiting stream as one chunk of NDJSON, then answers the enqueue. */
static void enqueue(int fd, const char *body, long body_length) {
  char id[32];
  snprintf(id, sizeof id, "%025lu", next_id++);
  /* The harness sends {"queue":…,"type":…,"payload":…}: the payload runs to the last brace. */
  const char *payload = memmem(body, body_length, "\"payload\":", 10);
  const char *value = "{}";
  int value_length = 2;
  if (payload != NULL && body + body_length - 1 - (payload + 10) > 0) {
    value = payload + 10;
    value_length = (int) (body + body_length - 1 - value);
  }
  if (stream_count > 0) {
    char line[16384];
    int length = snprintf(line, sizeof line,
        "{\"id\":\"%s\",\"type\":\"bench\",\"queue\":\"bench\",\"status\":\"in_flight\","
        "\"payload\":%.*s}\n", id, value_length, value);
    if (length >= (int) sizeof line) {
      respond(fd, "413 Payload Too Large", "{\"error\":\"payload too large for the floor server\"}");
      return;
    }
    char chunk[16400];
    int chunk_length = snprintf(chunk, sizeof chunk, "%x\r\n%.*s\r\n", length, length, line);
    write_all(streams[next_stream++ % stream_count], chunk, chunk_length);
  }
  char answer[256];
  snprintf(answer, sizeof answer,
      "{\"id\":\"%s\",\"type\":\"bench\",\"queue\":\"bench\",\"status\":\"ready\"}", id);
  respond(fd, "201 Created", answer);
}

/*
 * Serves one complete request from the connection's buffer; returns 0 when none is complete yet
 * and -1 when the connection must close.
 */
static int serve_one(Connection *c) {
  char *head_end = memmem(c->bytes, c->length, "\r\n\r\n", 4);
  if (head_end == NULL) {
    return 0;
  }
  int head_length = (int) (head_end - c->bytes) + 4;
  long body_length = 0;
  char *declared = memmem(c->bytes, head_length, "ontent-Length:", 14);
  if (declared == NULL) {
    declared = memmem(c->bytes, head_length, "ontent-length:", 14);
  }
  if (declared != NULL) {
    body_length = strtol(declared + 14, NULL, 10);
  }
  if (body_length < 0 || head_length + body_length > (long) sizeof c->bytes) {
    respond(c->fd, "413 Payload Too Large", "{\"error\":\"request too large for the floor server\"}");
    return -1;
  }
  if (c->length < head_length + body_length) {
    return 0;
  }
  const char *body = c->bytes + head_length;
  if (strncmp(c->bytes, "GET /health", 11) == 0) {
    respond(c->fd, "200 OK", "{\"status\":\"ok\"}");
  } else if (strncmp(c->bytes, "GET /version", 12) == 0) {
    respond(c->fd, "200 OK", "{\"version\":\"floor\"}");
  } else if (strncmp(c->bytes, "GET /jobs/count", 15) == 0) {
    respond(c->fd, "200 OK", "{\"count\":0}");
  } else if (strncmp(c->bytes, "GET /jobs/take", 14) == 0) {
    const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
        "transfer-encoding: chunked\r\n\r\n";
    write_all(c->fd, head, strlen(head));
    if (stream_count < MAX_STREAMS) {
      streams[stream_count++] = c->fd;
    }
  } else if (strncmp(c->bytes, "POST /jobs ", 11) == 0) {
    enqueue(c->fd, body, body_length);
  } else if (strncmp(c->bytes, "POST /jobs/", 11) == 0) {
    respond(c->fd, "204 No Content", "");
  } else {
    respond(c->fd, "404 Not Found", "{\"error\":\"not found\"}");
  }
  int used = head_length + (int) body_length;
  memmove(c->bytes, c->bytes + used, c->length - used);
  c->length -= used;
  return 1;
}

int main(int argc, char **argv) {
  int port = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--version") == 0) {
      puts("floor-server (not a job queue)");
      return 0;
    }
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) {
      port = atoi(argv[++i]);
    }
  }
  signal(SIGTERM, on_term);
  signal(SIGPIPE, SIG_IGN);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  if (bind(listener, (struct sockaddr *) &address, sizeof address) != 0
      || listen(listener, 128) != 0) {
    perror("floor-server: cannot listen");
    return 1;
  }
  int poller = epoll_create1(0);
  struct epoll_event wanted = {.events = EPOLLIN, .data.fd = listener};
  epoll_ctl(poller, EPOLL_CTL_ADD, listener, &wanted);
  struct epoll_event ready[64];
  for (;;) {
    int count = epoll_wait(poller, ready, 64, -1);
    for (int i = 0; i < count; i++) {
      int fd = ready[i].data.fd;
      if (fd == listener) {
        int accepted = accept(listener, NULL, NULL);
        if (accepted < 0 || accepted >= MAX_FDS) {
          if (accepted >= 0) {
            close(accepted);
          }
          continue;
        }
        setsockopt(accepted, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        connections[accepted] = calloc(1, sizeof(Connection));
        if (connections[accepted] == NULL) {
          close(accepted);
          continue;
        }
        connections[accepted]->fd = accepted;
        struct epoll_event reads = {.events = EPOLLIN, .data.fd = accepted};
        epoll_ctl(poller, EPOLL_CTL_ADD, accepted, &reads);
        continue;
      }
      Connection *c = connections[fd];
      int room = (int) sizeof c->bytes - c->length;
      int got = room > 0 ? read(fd, c->bytes + c->length, room) : 0;
      int served = 0;
      if (got > 0) {
        c->length += got;
        while ((served = serve_one(c)) > 0) {
        }
      }
      if (got <= 0 || served < 0) {
        forget_stream(fd);
        close(fd);
        free(c);
        connections[fd] = NULL;
      }
    }
  }
}
