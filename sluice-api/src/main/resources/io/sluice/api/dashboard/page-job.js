// One job: its fields, payload, budget bindings, error records and why it waits (X2), with the
// actions delete, retry a dead job now and run a scheduled job now. Refreshed on each heartbeat.

import {api, enc} from './api.js';
import {h, replace, number, time, relative, statusBadge, errorBox, markDataRendered}
  from './dom.js';

/** The enqueue fields a retry copies from a dead job. */
const COPIED = ['type', 'queue', 'priority', 'payload', 'retry_limit', 'backoff', 'retention',
  'unique_key', 'unique_while'];

export function mount(root, {feed, args}) {
  const id = args[0];
  const notice = h('div', {id: 'job-notice'});
  const body = h('div', {id: 'job-body'}, h('p', {class: 'muted'}, 'Loading…'));
  replace(root, h('p', {}, h('a', {href: '#/jobs'}, '← Jobs')),
    h('h1', {}, 'Job ', h('span', {class: 'mono'}, id)), notice, body);
  let alive = true;

  const act = async (what, request) => {
    try {
      const outcome = await request();
      if (alive) replace(notice, h('div', {class: 'ok', role: 'status'}, outcome ?? what));
      await load();
    } catch (error) {
      if (alive) replace(notice, errorBox(error));
    }
  };

  const actions = (job) => h('div', {class: 'actions'},
    job.status === 'dead' && h('button', {id: 'job-retry', onclick: () => act('retried',
      async () => {
        const copy = {};
        for (const field of COPIED) if (job[field] !== undefined) copy[field] = job[field];
        if (job.budgets) copy.budgets = job.budgets.map(({key, cost}) => ({key, cost}));
        const made = await api('/jobs', {method: 'POST', body: copy});
        return h('span', {}, 'Retried as ',
          h('a', {href: `#/jobs/${made.id}`, id: 'retried-as'}, made.id));
      })}, 'Retry now'),
    job.status === 'scheduled' && h('button', {id: 'job-run-now', onclick: () => act(
      'moved to ready', () => api(`/jobs/${enc(id)}`, {method: 'PATCH', body: {ready_at: null}})
        .then(() => 'moved to ready'))}, 'Run now'),
    h('button', {id: 'job-delete', class: 'danger', onclick: () => {
      if (confirm(`Delete job ${id}?`)) {
        act('deleted', () => api(`/jobs/${enc(id)}`, {method: 'DELETE'}).then(() => 'deleted'));
      }
    }}, 'Delete'));

  const load = async () => {
    try {
      const [job, wait, errors] = await Promise.all([
        api(`/jobs/${enc(id)}`), api(`/jobs/${enc(id)}/wait`),
        api(`/jobs/${enc(id)}/errors?limit=20&order=desc`)]);
      if (!alive) return;
      render(job, wait, errors.errors);
      markDataRendered();
    } catch (error) {
      if (alive) replace(body, errorBox(error));
    }
  };

  const render = (job, wait, errors) => replace(body,
    actions(job),
    h('div', {class: 'columns'},
      h('div', {},
        h('h2', {}, 'Job'),
        h('dl', {class: 'fields'},
          field('status', statusBadge(job.status)), field('type', job.type),
          field('queue', job.queue), field('priority', number(job.priority)),
          field('attempts', job.attempts), field('ready at', time(job.ready_at)),
          job.dequeued_at && field('dequeued at', time(job.dequeued_at)),
          job.retry_limit !== undefined && field('retry limit', job.retry_limit),
          job.unique_key && field('unique key', `${job.unique_key} (${job.unique_while})`)),
        h('h2', {}, 'Payload'),
        h('pre', {id: 'job-payload'}, JSON.stringify(job.payload, null, 2)),
        h('h2', {}, 'Budget bindings'),
        job.budgets?.length
          ? h('ul', {}, job.budgets.map((b) => h('li', {},
            h('a', {href: '#/budgets'}, b.key), ` · cost ${b.cost}`)))
          : h('p', {class: 'muted'}, 'Not bound to any budget.')),
      h('div', {},
        h('h2', {}, 'Why is it waiting?'),
        explanation(wait),
        h('h2', {}, 'Errors'),
        errors.length ? errors.map(errorRecord) : h('p', {class: 'muted'}, 'No error records.'))));

  load();
  const stop = feed.on('heartbeat', load);
  return () => {
    alive = false;
    stop();
  };
}

function field(name, value) {
  return [h('dt', {}, name), h('dd', {}, value)];
}

/** X2's answer in words, then a row per budget binding. */
function explanation(wait) {
  const summary = {
    null: `Not waiting: the job is ${wait.status.replace('_', ' ')}.`,
    ready_at: `Scheduled: it becomes ready ${relative(wait.ready_at)} (${time(wait.ready_at)}).`,
    budgets: 'Held back by its budgets.',
    worker: 'Ready, and no budget holds it back: waiting for a worker of its queue with room.',
  }[wait.waiting_for];
  return h('div', {id: 'job-wait', 'data-waiting-for': wait.waiting_for ?? 'nothing'},
    h('p', {}, summary),
    wait.estimated_dispatch_at && h('p', {}, 'Estimated dispatch ',
      relative(wait.estimated_dispatch_at), ` (${time(wait.estimated_dispatch_at)}).`),
    wait.budgets?.length && h('table', {},
      h('thead', {}, h('tr', {}, ['budget', 'cost', 'blocking', 'reason', 'tokens',
        'ahead: jobs / cost', 'available'].map((c) => h('th', {}, c)))),
      h('tbody', {}, wait.budgets.map((b) => h('tr', {'data-budget': b.key},
        h('td', {}, b.key), h('td', {class: 'num'}, b.cost),
        h('td', {}, b.blocking ? 'yes' : 'no'), h('td', {class: 'reason'}, b.reason ?? '—'),
        h('td', {class: 'num'}, number(b.tokens)),
        h('td', {class: 'num'}, `${number(b.ahead?.jobs)} / ${number(b.ahead?.cost)}`),
        h('td', {}, b.available_at ? relative(b.available_at) : '—'))))));
}

function errorRecord(error) {
  return h('div', {class: 'error-record'},
    h('div', {}, h('strong', {}, `Attempt ${error.attempt}`),
      ` · failed ${time(error.failed_at)}`, error.error_type && ` · ${error.error_type}`,
      error.throttled && ' · throttled'),
    h('div', {}, error.message),
    error.backtrace && h('pre', {}, error.backtrace));
}
