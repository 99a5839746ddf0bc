// Every data call of the console (docs/design/0449-operator-console.md): the token from this tab's
// session storage as a bearer header, JSON both ways, and the server's own words on an error.
const KEY = 'lethe.console.token';

export function token() { return sessionStorage.getItem(KEY); }
export function keepToken(value) { sessionStorage.setItem(KEY, value); }
export function forgetToken() { sessionStorage.removeItem(KEY); }

/** An answer that is not 2xx: status and the server's message. */
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

export async function call(method, path, body) {
  const headers = { 'Authorization': 'Bearer ' + token(), 'Accept': 'application/json' };
  const init = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (notJson) { json = null; }
  if (!response.ok) {
    const message = json && (json.message || (json.error && json.error.message)) || ('HTTP ' + response.status);
    throw new ApiError(response.status, message);
  }
  return json;
}

export const seg = encodeURIComponent;

export function catalogPath(me, catalog) {
  return '/api/metalakes/' + seg(me.metalake) + '/catalogs/' + seg(catalog);
}

/** Every job of a catalog (newest first), of one state and one exact namespace if given, walking the pages up to a bound. */
export async function jobs(me, catalog, state, namespace) {
  const all = [];
  let pageToken = null;
  for (let page = 0; page < 5; page++) {
    const q = new URLSearchParams({ limit: '1000' });
    if (state) q.set('state', state);
    if (namespace) q.set('namespace', namespace);
    if (pageToken) q.set('pageToken', pageToken);
    const answer = await call('GET', catalogPath(me, catalog) + '/cleanups?' + q);
    all.push(...answer.cleanups);
    pageToken = answer.nextPageToken;
    if (!pageToken) break;
  }
  return all;
}

/**
 * One catalog's figures for the Overview, in one call (docs/design/0450-catalog-summary.md): jobs per
 * state, the oldest pending job, the newest failed jobs, retained tables in every namespace, the
 * nearest deadline, holds in force and protections; times on the server's database clock.
 */
export async function summary(me, catalog) {
  return call('GET', catalogPath(me, catalog) + '/summary');
}
