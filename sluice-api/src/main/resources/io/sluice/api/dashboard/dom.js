// Small helpers to build elements and format figures; no framework.

/** h('td', {class: 'num'}, 'text', child…): an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export function replace(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined));
}

export function number(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
}

/** An instant as local date and time, to the second. */
export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} `
    + `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** A span of milliseconds in the largest units that matter: "3 min 20 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  if (s < 86400) {
    const minutes = Math.floor((s % 3600) / 60);
    return `${Math.floor(s / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
  }
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** "in 20 s" or "5 s ago" from now. */
export function relative(ms, nowMs = Date.now()) {
  if (ms === null || ms === undefined) return '—';
  return ms >= nowMs ? `in ${duration(ms - nowMs)}` : `${duration(nowMs - ms)} ago`;
}

export function statusBadge(status) {
  return h('span', {class: `badge status-${status}`}, status.replace('_', ' '));
}

/**
 * Marks the moment a page first shows the server's data, for the Performance API: the
 * first-paint bench (sluice-bench/scripts/dashboard-first-paint.py) reads it.
 */
export function markDataRendered() {
  if (!performance.getEntriesByName('sluice-data-rendered').length) {
    performance.mark('sluice-data-rendered');
  }
}

/** A box showing the server's error message; pages show it instead of going blank. */
export function errorBox(error) {
  return h('div', {class: 'error', role: 'alert'}, error.message || String(error));
}
