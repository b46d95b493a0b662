// Cron: groups and their entries with the next fire, paused or not, refreshed on each heartbeat.
// Groups are read 20 at a time (GET /crons lists names only; each group is one request).

import {api, enc} from './api.js';
import {h, replace, time, relative, errorBox, markDataRendered} from './dom.js';

const GROUPS_PER_PAGE = 20;

export function mount(root, {feed}) {
  const notice = h('div', {id: 'cron-notice'});
  const list = h('div', {id: 'cron-list'}, h('p', {class: 'muted'}, 'Loading…'));
  const pager = h('div', {class: 'pager'});
  replace(root, h('h1', {}, 'Cron'), notice, list, pager);
  let first = 0;
  let alive = true;

  const act = async (request) => {
    try {
      await request();
      replace(notice);
      await load();
    } catch (error) {
      replace(notice, errorBox(error));
    }
  };

  const load = async () => {
    try {
      const names = (await api('/crons')).crons;
      first = Math.min(first, Math.max(0, names.length - 1));
      const shown = names.slice(first, first + GROUPS_PER_PAGE);
      const groups = await Promise.all(shown.map((name) => api(`/crons/${enc(name)}`)));
      if (!alive) return;
      replace(list, groups.length ? groups.map((g) => group(g, act))
        : h('p', {class: 'muted'}, 'No cron groups.'));
      replace(pager,
        h('button', {disabled: first === 0, onclick: () => {
          first = Math.max(0, first - GROUPS_PER_PAGE);
          load();
        }}, '← Previous'),
        h('span', {class: 'muted'}, `${names.length} groups`),
        h('button', {disabled: first + GROUPS_PER_PAGE >= names.length, onclick: () => {
          first += GROUPS_PER_PAGE;
          load();
        }}, 'Next →'));
      markDataRendered();
    } catch (error) {
      if (alive) replace(list, errorBox(error));
    }
  };

  load();
  const stop = feed.on('heartbeat', load);
  return () => {
    alive = false;
    stop();
  };
}

function toggle(paused, path, act) {
  return h('button', {class: paused ? 'resume' : 'pause', onclick: () => act(() =>
    api(path, {method: 'PATCH', body: {paused: !paused}}))}, paused ? 'Resume' : 'Pause');
}

function group(g, act) {
  const path = `/crons/${enc(g.name)}`;
  return h('div', {class: `cron-group${g.paused ? ' paused' : ''}`, 'data-group': g.name},
    h('div', {class: 'budget-head'},
      h('h2', {}, g.name),
      h('span', {class: 'muted'}, g.timezone ?? 'server time zone'),
      g.paused && h('span', {class: 'badge status-dead'}, 'paused'),
      toggle(g.paused, path, act)),
    h('table', {},
      h('thead', {}, h('tr', {}, ['entry', 'expression', 'job', 'next fire', 'last fire', '']
        .map((c) => h('th', {}, c)))),
      h('tbody', {}, g.entries.map((e) => h('tr', {'data-entry': e.name,
        class: e.paused ? 'paused' : ''},
        h('td', {}, e.name, e.paused ? h('span', {class: 'badge status-dead'}, 'paused') : null),
        h('td', {class: 'mono'}, e.expression, e.timezone ? ` (${e.timezone})` : ''),
        h('td', {}, `${e.job.type} → ${e.job.queue}`),
        h('td', {class: 'next-fire'}, e.next_enqueue_at
          ? [relative(e.next_enqueue_at), h('div', {class: 'muted'}, time(e.next_enqueue_at))]
          : '—'),
        h('td', {}, e.last_enqueue_at ? relative(e.last_enqueue_at) : 'never'),
        h('td', {}, toggle(e.paused, `${path}/entries/${enc(e.name)}`, act)))))));
}
