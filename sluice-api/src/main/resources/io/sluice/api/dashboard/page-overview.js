// Overview: jobs per status, workers, and a live chart of jobs enqueued, completed and failed
// per second over the last 15 minutes (the feed's throughput message).

import uPlot from '/assets/uplot/uPlot.esm.js';
import {h, replace, number, duration, markDataRendered} from './dom.js';

const WINDOW_S = 15 * 60;
/** The x axis spans at least this much, so a fresh server's first seconds are not stretched. */
const MIN_SPAN_S = 60;
const CHART_PADDING = 24;
const STATUSES = ['scheduled', 'ready', 'in_flight', 'completed', 'dead'];
const SERIES = [
  {label: 'enqueued', stroke: '#2563eb'},
  {label: 'completed', stroke: '#16a34a'},
  {label: 'failed', stroke: '#dc2626'},
];

export function mount(root, {feed}) {
  const cards = h('div', {class: 'cards'});
  const about = h('p', {class: 'muted', id: 'server-about'});
  const chartBox = h('div', {class: 'chart', id: 'throughput-chart'});
  const sums = h('div', {class: 'cards'});
  replace(root,
    h('h1', {}, 'Overview'),
    cards,
    h('h2', {}, 'Jobs per second, last 15 minutes'),
    chartBox,
    sums,
    about);

  let workers = null;
  const renderCards = () => {
    const status = feed.last('status');
    const counts = status?.counts ?? {};
    replace(cards,
      STATUSES.map((s) => card(s.replace('_', ' '), counts[s], `count-${s}`, `status-${s}`)),
      card('workers', workers, 'count-workers'),
      card('budgets', status?.budgets, 'count-budgets'));
    if (status) {
      about.textContent = `Sluice ${status.server_version} · API ${status.api_version} · up `
        + duration(status.uptime_ms);
      markDataRendered();
    }
  };

  const data = [[], [], [], []];
  const chart = new uPlot({
    width: chartWidth(chartBox),
    height: 260,
    scales: {
      x: {time: true, range: (u, min, max) => [Math.min(min, max - MIN_SPAN_S), max]},
      y: {range: (u, min, max) => [0, Math.max(5, max)]},
    },
    series: [{}, ...SERIES.map((s) => ({...s, width: 2, points: {show: false}}))],
    axes: [{}, {label: 'jobs / s'}],
  }, data, chartBox);
  const resize = () => chart.setSize({width: chartWidth(chartBox), height: 260});
  window.addEventListener('resize', resize);

  const addSamples = (message) => {
    workers = message.workers;
    for (const sample of message.samples) {
      data[0].push(sample.at / 1000);
      data[1].push(sample.enqueued);
      data[2].push(sample.completed);
      data[3].push(sample.failed);
    }
    const oldest = Date.now() / 1000 - WINDOW_S;
    while (data[0].length && data[0][0] < oldest) data.forEach((series) => series.shift());
    chart.setData(data);
    const total = (series) => series.reduce((sum, n) => sum + n, 0);
    replace(sums, SERIES.map((s, i) => card(`${s.label} (15 min)`, total(data[i + 1]),
      `window-${s.label}`)));
    renderCards();
  };

  renderCards();
  const stops = [feed.on('status', renderCards), feed.on('throughput', addSamples)];
  feed.watchThroughput();
  // The feed sends the whole history only when asked, so a page opened again asks again.
  feed.send({type: 'throughput'});
  return () => {
    stops.forEach((stop) => stop());
    window.removeEventListener('resize', resize);
    chart.destroy();
  };
}

function chartWidth(box) {
  return Math.max(400, (box.clientWidth || 900) - CHART_PADDING);
}

function card(label, value, id, tone = '') {
  return h('div', {class: `card ${tone}`},
    h('div', {class: 'card-value', id}, number(value)),
    h('div', {class: 'card-label'}, label));
}
