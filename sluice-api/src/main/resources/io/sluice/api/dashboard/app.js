// The dashboard's shell: one feed connection, and the page named by the URL's hash.

import {Feed} from './feed.js';
import {h, replace, errorBox} from './dom.js';
import * as overview from './page-overview.js';
import * as queues from './page-queues.js';
import * as jobs from './page-jobs.js';
import * as job from './page-job.js';
import * as budgets from './page-budgets.js';
import * as cron from './page-cron.js';

const pages = {overview, queues, jobs, job, budgets, cron};
const root = document.getElementById('page');
const connection = document.getElementById('connection');

const feed = new Feed((open) => {
  connection.textContent = open ? 'live' : 'reconnecting…';
  connection.className = `connection ${open ? 'open' : 'closed'}`;
});

let unmount = null;

/** "#/jobs?queue=a" → {name: 'jobs', args: [], params}; "#/jobs/ID" → job page with args ['ID']. */
function route() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [first = 'overview', ...args] = path.split('/').filter(Boolean).map(decodeURIComponent);
  const name = first === 'jobs' && args.length ? 'job' : first;
  return {name, args, params: new URLSearchParams(query)};
}

function show() {
  if (unmount) unmount();
  unmount = null;
  feed.subscribe(null);
  const {name, args, params} = route();
  const page = pages[name];
  const nav = name === 'job' ? 'jobs' : name;
  for (const link of document.querySelectorAll('nav a')) {
    link.classList.toggle('active', link.dataset.page === nav);
  }
  if (!page) {
    replace(root, errorBox(new Error(`no page named "${name}"`)));
    return;
  }
  const container = h('section', {id: `page-${name}`});
  replace(root, container);
  unmount = page.mount(container, {feed, args, params});
}

window.addEventListener('hashchange', show);
show();
