// Queues: jobs per status in each queue, live from the feed's status messages.

import {h, replace, number, markDataRendered} from './dom.js';

const STATUSES = ['scheduled', 'ready', 'in_flight', 'completed', 'dead'];

export function mount(root, {feed}) {
  const body = h('tbody');
  replace(root,
    h('h1', {}, 'Queues'),
    h('table', {id: 'queues-table'},
      h('thead', {}, h('tr', {},
        h('th', {}, 'queue'),
        STATUSES.map((s) => h('th', {class: 'num'}, s.replace('_', ' '))),
        h('th', {class: 'num'}, 'total'))),
      body));

  const render = () => {
    const status = feed.last('status');
    if (!status) return;
    markDataRendered();
    const queues = status.queues;
    if (!queues.length) {
      replace(body, h('tr', {}, h('td', {colspan: 7, class: 'muted'}, 'No queue holds jobs.')));
      return;
    }
    replace(body, queues.map((q) => h('tr', {'data-queue': q.queue},
      h('td', {}, h('a', {href: `#/jobs?queue=${encodeURIComponent(q.queue)}`}, q.queue)),
      STATUSES.map((s) => h('td', {class: 'num'},
        q[s] ? h('a', {href: `#/jobs?queue=${encodeURIComponent(q.queue)}&status=${s}`},
          number(q[s])) : '0')),
      h('td', {class: 'num'}, number(STATUSES.reduce((sum, s) => sum + q[s], 0))))));
  };
  render();
  return feed.on('status', render);
}
