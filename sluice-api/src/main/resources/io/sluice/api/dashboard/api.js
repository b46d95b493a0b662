// The public API, which the admin listener also serves under /api for this dashboard.

export const API = '/api';

/** Thrown for a non-2xx answer; `message` is the server's own error text. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Sends a request under /api and returns the decoded JSON (null for 204). */
export async function api(path, {method = 'GET', body} = {}) {
  const init = {method, headers: {Accept: 'application/json'}};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(API + path, init);
  if (response.status === 204) return null;
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the raw text is the best message there is.
  }
  if (!response.ok) {
    throw new ApiError(response.status, json?.error ?? (text || `HTTP ${response.status}`));
  }
  return json;
}

export const enc = encodeURIComponent;
