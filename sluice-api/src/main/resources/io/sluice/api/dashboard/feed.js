// The admin listener's live feed (GET /events, docs/events.md): one WebSocket for all pages.

const RECONNECT_MS = 1000;

export class Feed {
  constructor(onConnection) {
    this.onConnection = onConnection;
    this.listeners = new Map();
    this.latest = new Map();
    this.subscription = null;
    this.watchingThroughput = false;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    this.socket = new WebSocket(`${scheme}//${location.host}/events`);
    this.socket.onopen = () => {
      this.onConnection(true);
      // A new connection knows nothing of the old one: ask again for what the page shows.
      if (this.subscription) this.send(this.subscription);
      if (this.watchingThroughput) this.send({type: 'throughput'});
    };
    this.socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      this.latest.set(message.type, message);
      for (const listener of this.listeners.get(message.type) ?? []) listener(message);
    };
    this.socket.onclose = () => {
      this.onConnection(false);
      setTimeout(() => this.connect(), RECONNECT_MS);
    };
  }

  /** Calls `listener` with each message of `type`; returns a function that stops it. */
  on(type, listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(listener);
    return () => this.listeners.get(type).delete(listener);
  }

  /** The last message of `type` received, or undefined. */
  last(type) {
    return this.latest.get(type);
  }

  send(message) {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /** Subscribes to a tab (kept across reconnects); null forgets it. */
  subscribe(message) {
    this.subscription = message;
    if (message) this.send(message);
  }

  watchThroughput() {
    if (this.watchingThroughput) return;
    this.watchingThroughput = true;
    this.send({type: 'throughput'});
  }
}
