// Jobs: GET /jobs with its filters, a page of 50 at a time, oldest first.

import {api, enc} from './api.js';
import {h, replace, number, time, statusBadge, errorBox, markDataRendered} from './dom.js';

const PAGE_SIZE = 50;
const STATUSES = ['', 'scheduled', 'ready', 'in_flight', 'completed', 'dead'];
/** Form field → GET /jobs parameter. */
const FILTERS = {queue: 'queue', type: 'type', status: 'status', budget: 'budgets.key',
  filter: 'filter'};

export function mount(root, {params}) {
  const fields = {};
  for (const name of Object.keys(FILTERS)) fields[name] = params.get(name) ?? '';
  const inputs = {
    queue: h('input', {name: 'queue', placeholder: 'queue', value: fields.queue}),
    type: h('input', {name: 'type', placeholder: 'type', value: fields.type}),
    status: h('select', {name: 'status'}, STATUSES.map((s) =>
      h('option', {value: s, selected: s === fields.status}, s || 'any status'))),
    budget: h('input', {name: 'budget', placeholder: 'budget key', value: fields.budget}),
    filter: h('input', {name: 'filter', class: 'wide', placeholder: 'jq filter, e.g. .n > 3',
      value: fields.filter}),
  };
  const form = h('form', {class: 'filters', id: 'job-filters'},
    Object.values(inputs), h('button', {type: 'submit'}, 'Apply'));
  const result = h('div', {id: 'jobs-result'}, h('p', {class: 'muted'}, 'Loading…'));
  replace(root, h('h1', {}, 'Jobs'), form, result);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, input] of Object.entries(inputs)) {
      if (input.value.trim()) query.set(name, input.value.trim());
    }
    location.hash = `#/jobs?${query}`;
  });

  // Cursors of the pages before this one, so "Previous" retraces them.
  const earlier = [];
  let alive = true;
  const load = async (from) => {
    const query = [`limit=${PAGE_SIZE}`];
    for (const [name, param] of Object.entries(FILTERS)) {
      if (fields[name]) query.push(`${param}=${enc(fields[name])}`);
    }
    if (from) query.push(`from=${enc(from)}`);
    try {
      const page = await api(`/jobs?${query.join('&')}`);
      if (alive) render(page, from);
    } catch (error) {
      if (alive) replace(result, errorBox(error));
    }
  };

  const render = (page, from) => {
    const rows = page.jobs.map((job) => h('tr', {'data-id': job.id},
      h('td', {}, h('a', {href: `#/jobs/${job.id}`, class: 'mono'}, job.id)),
      h('td', {}, job.type), h('td', {}, job.queue), h('td', {}, statusBadge(job.status)),
      h('td', {class: 'num'}, number(job.priority)), h('td', {class: 'num'}, job.attempts),
      h('td', {}, time(job.ready_at))));
    const last = page.jobs.at(-1)?.id;
    replace(result,
      h('table', {id: 'jobs-table'},
        h('thead', {}, h('tr', {}, ['id', 'type', 'queue', 'status', 'priority', 'attempts',
          'ready at'].map((c) => h('th', {class: ['priority', 'attempts'].includes(c)
          ? 'num' : ''}, c)))),
        h('tbody', {}, rows.length ? rows
          : h('tr', {}, h('td', {colspan: 7, class: 'muted'}, 'No job matches.')))),
      h('div', {class: 'pager'},
        h('button', {id: 'jobs-prev', disabled: !from, onclick: () => load(earlier.pop())},
          '← Previous'),
        h('span', {class: 'muted'}, `${page.jobs.length} shown, ${PAGE_SIZE} per page`),
        h('button', {id: 'jobs-next', disabled: !page.pages.next, onclick: () => {
          earlier.push(from);
          load(last);
        }}, 'Next →')));
    markDataRendered();
  };

  load(null);
  return () => {
    alive = false;
  };
}
