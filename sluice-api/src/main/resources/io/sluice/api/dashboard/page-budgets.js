// Budgets: each budget's policy and live state (X1) from the feed's budgets tab, refreshed every
// second, with pause (X6) and resume through the public API's routes.

import {api, enc} from './api.js';
import {h, replace, number, time, relative, duration, errorBox, markDataRendered}
  from './dom.js';

const PAGE_SIZE = 50;
const PAUSES = [['1 min', 60_000], ['5 min', 300_000], ['1 h', 3_600_000], ['1 day', 86_400_000]];

export function mount(root, {feed}) {
  const notice = h('div', {id: 'budget-notice'});
  const list = h('div', {id: 'budgets-list'}, h('p', {class: 'muted'}, 'Loading…'));
  const pager = h('div', {class: 'pager'});
  replace(root, h('h1', {}, 'Budgets'), notice, list, pager);
  let offset = 0;
  // The page is redrawn every second: remember each budget's chosen pause length across redraws.
  const pauseChoices = new Map();

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
      replace(list, message.budgets.map((b) => budgetCard(b, message.as_of, act, pauseChoices)));
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

function budgetCard(budget, nowMs, act, pauseChoices) {
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

function figure(name, value, id) {
  return [h('dt', {}, name), h('dd', {'data-figure': id}, value)];
}
