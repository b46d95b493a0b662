// Budgets: each budget's policy and live state (X1) from the feed's budgets tab, refreshed every
// second, with pause (X6) and resume through the public API's routes.

import {api, enc} from './api.js';
import {h, replace, number, time, relative, duration, errorBox, markDataRendered}
  from './dom.js';

const PAGE_SIZE = 50;
/** Partitions shown per partitioned budget (X3), and how often they are read again. */
const BUSIEST = 5;
const BUSIEST_EVERY_MS = 2_000;
const PAUSES = [['1 min', 60_000], ['5 min', 300_000], ['1 h', 3_600_000], ['1 day', 86_400_000]];

export function mount(root, {feed}) {
  const notice = h('div', {id: 'budget-notice'});
  const list = h('div', {id: 'budgets-list'}, h('p', {class: 'muted'}, 'Loading…'));
  const pager = h('div', {class: 'pager'});
  replace(root, h('h1', {}, 'Budgets'), notice, list, pager);
  let offset = 0;
  // The page is redrawn every second: remember each budget's chosen pause length across redraws.
  const pauseChoices = new Map();
  // A partitioned budget's busiest partitions, by key: {atMs, partitions} or {error}; read at
  // most every BUSIEST_EVERY_MS (the server scans every partition to answer).
  const busiest = new Map();
  const refreshBusiest = (key) => {
    const known = busiest.get(key);
    if (known && (known.loading || Date.now() - known.atMs < BUSIEST_EVERY_MS)) return;
    busiest.set(key, {...known, loading: true});
    api(`/budgets/${enc(key)}/partitions?sort=waiting&limit=${BUSIEST}`)
      .then((page) => busiest.set(key, {atMs: Date.now(), partitions: page.partitions}))
      .catch((error) => busiest.set(key, {atMs: Date.now(), error}));
  };

  const act = async (request) => {
    try {
      await request();
      replace(notice);
      feed.send({type: 'scroll', offset}); // show the new state now, not at the next tick
    } catch (error) {
      replace(notice, errorBox(error));
    }
  };

  const render = (message) => {
    offset = message.offset;
    if (!message.budgets.length) {
      replace(list, h('p', {class: 'muted'}, 'No budgets.'));
    } else {
      message.budgets.filter((b) => b.partitioned).forEach((b) => refreshBusiest(b.key));
      replace(list, message.budgets.map((b) =>
        budgetCard(b, message.as_of, act, pauseChoices, busiest.get(b.key))));
    }
    replace(pager,
      h('button', {disabled: offset === 0,
        onclick: () => feed.send({type: 'scroll', offset: Math.max(0, offset - PAGE_SIZE)})},
      '← Previous'),
      h('span', {class: 'muted'}, `${message.total ? offset + 1 : 0}–`
        + `${offset + message.budgets.length} of ${number(message.total)}`),
      h('button', {disabled: offset + PAGE_SIZE >= message.total,
        onclick: () => feed.send({type: 'scroll', offset: offset + PAGE_SIZE})}, 'Next →'));
    markDataRendered();
  };

  const stop = feed.on('budgets', render);
  feed.subscribe({type: 'subscribe', tab: 'budgets', limit: PAGE_SIZE, refresh_ms: 1000});
  return stop;
}

function policy(budget) {
  const strategy = budget.strategy;
  return strategy.type === 'time_based'
    ? `${number(budget.allocation)} tokens every ${duration(strategy.duration_ms)}`
    : `${number(budget.allocation)} in flight at once`;
}

function budgetCard(budget, nowMs, act, pauseChoices, busiest) {
  if (budget.partitioned) {
    return partitionedCard(budget, nowMs, act, pauseChoices, busiest);
  }
  const state = budget.state;
  const paused = state.paused_until !== null && state.paused_until > nowMs;
  const fill = state.capacity ? Math.min(1, Math.max(0, (state.tokens ?? 0) / state.capacity)) : 0;
  const chosen = pauseChoices.get(budget.key) ?? PAUSES[0][1];
  const pauseFor = h('select', {class: 'pause-for',
    onchange: () => pauseChoices.set(budget.key, Number(pauseFor.value))},
  PAUSES.map(([label, ms]) => h('option', {value: ms, selected: ms === chosen}, label)));
  const key = enc(budget.key);
  return h('div', {class: `budget${paused ? ' paused' : ''}`, 'data-key': budget.key},
    h('div', {class: 'budget-head'},
      h('h2', {}, budget.key),
      h('span', {class: 'muted'}, `${policy(budget)} · ${budget.strategy.type.replace(/_/g, ' ')}`),
      paused && h('span', {class: 'badge status-dead paused-badge'},
        `paused until ${time(state.paused_until)}`)),
    h('div', {class: 'gauge', title: `${state.tokens} of ${state.capacity} tokens`},
      h('div', {class: 'gauge-fill', style: `width: ${(fill * 100).toFixed(1)}%`})),
    h('dl', {class: 'figures'},
      figure('tokens', `${number(state.tokens)} / ${number(state.capacity)}`, 'tokens'),
      figure('waiting', `${number(state.waiting.jobs)} jobs · cost ${number(state.waiting.cost)}`,
        'waiting'),
      figure('in flight', `${number(state.in_flight.jobs)} jobs · cost `
        + number(state.in_flight.cost), 'in-flight'),
      figure('next token', state.next_token_at ? relative(state.next_token_at, nowMs) : '—',
        'next-token'),
      figure('full', state.full_at ? relative(state.full_at, nowMs) : '—', 'full'),
      state.debt ? figure('debt', number(state.debt), 'debt') : null,
      figure('dispatched', number(state.dispatched), 'dispatched')),
    h('div', {class: 'actions'},
      paused
        ? h('button', {class: 'resume', onclick: () => act(() =>
          api(`/budgets/${key}/resume`, {method: 'POST'}))}, 'Resume')
        : [pauseFor, h('button', {class: 'pause', onclick: () => act(() =>
          api(`/budgets/${key}/pause`, {method: 'POST',
            body: {for_ms: Number(pauseFor.value)}}))}, 'Pause')],
      h('a', {href: `#/jobs?budget=${key}`}, 'jobs bound to it →')));
}

/**
 * A partitioned budget (X3) has tokens only per partition: its card shows the sums, how many
 * partitions are active, and the partitions with the most waiting jobs, each with its own gauge.
 */
function partitionedCard(budget, nowMs, act, pauseChoices, busiest) {
  const state = budget.state;
  const paused = state.paused_until !== null && state.paused_until > nowMs;
  const key = enc(budget.key);
  return h('div', {class: `budget partitioned${paused ? ' paused' : ''}`, 'data-key': budget.key},
    h('div', {class: 'budget-head'},
      h('h2', {}, budget.key),
      h('span', {class: 'muted'}, `${policy(budget)} per partition · `
        + budget.strategy.type.replace(/_/g, ' ')),
      paused && h('span', {class: 'badge status-dead paused-badge'},
        `paused until ${time(state.paused_until)}`)),
    h('dl', {class: 'figures'},
      figure('partitions', number(state.partitions), 'partitions'),
      figure('waiting', `${number(state.waiting.jobs)} jobs · cost ${number(state.waiting.cost)}`,
        'waiting'),
      figure('in flight', `${number(state.in_flight.jobs)} jobs · cost `
        + number(state.in_flight.cost), 'in-flight'),
      figure('dispatched', number(state.dispatched), 'dispatched')),
    busiestTable(busiest, nowMs),
    h('div', {class: 'actions'},
      paused
        ? h('button', {class: 'resume', onclick: () => act(() =>
          api(`/budgets/${key}/resume`, {method: 'POST'}))}, 'Resume all')
        : [pauseSelect(budget.key, pauseChoices), h('button', {class: 'pause', onclick: () =>
          act(() => api(`/budgets/${key}/pause`, {method: 'POST',
            body: {for_ms: pauseChoices.get(budget.key) ?? PAUSES[0][1]}}))}, 'Pause all')],
      h('a', {href: `#/jobs?budget=${key}`}, 'jobs bound to it →')));
}

function pauseSelect(key, pauseChoices) {
  const chosen = pauseChoices.get(key) ?? PAUSES[0][1];
  const select = h('select', {class: 'pause-for',
    onchange: () => pauseChoices.set(key, Number(select.value))},
  PAUSES.map(([label, ms]) => h('option', {value: ms, selected: ms === chosen}, label)));
  return select;
}

function busiestTable(busiest, nowMs) {
  if (!busiest || (!busiest.partitions && !busiest.error)) {
    return h('p', {class: 'muted'}, 'Loading partitions…');
  }
  if (busiest.error) {
    return errorBox(busiest.error);
  }
  if (!busiest.partitions.length) {
    return h('p', {class: 'muted busiest-none'}, 'No partition has waiting jobs.');
  }
  return h('table', {class: 'busiest'},
    h('caption', {}, 'Partitions with the most waiting jobs'),
    h('thead', {}, h('tr', {},
      ['partition', 'waiting', 'in flight', 'tokens', 'next token', 'paused until']
        .map((name) => h('th', {}, name)))),
    h('tbody', {}, busiest.partitions.map((p) => h('tr', {'data-partition': p.partition},
      h('td', {}, p.partition),
      h('td', {}, number(p.state.waiting.jobs)),
      h('td', {}, number(p.state.in_flight.jobs)),
      h('td', {}, `${number(p.state.tokens)} / ${number(p.state.capacity)}`),
      h('td', {}, p.state.next_token_at ? relative(p.state.next_token_at, nowMs) : '—'),
      h('td', {}, p.state.paused_until ? time(p.state.paused_until) : '—')))));
}

function figure(name, value, id) {
  return [h('dt', {}, name), h('dd', {'data-figure': id}, value)];
}
