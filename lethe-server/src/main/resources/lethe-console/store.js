// The Store view of the operator console (docs/design/0452-console-store-view.md): namespaces ->
// collections -> one bounded page of records of the server's store, live records or tombstones
// too, and for a store admin the peers the store remembers. Drawn when a selection changes or on
// Reload, not every 3 s: a listing may read many records on the store's substrate.
import { call, ApiError, seg } from '/ui/api.js';
import { el, when } from '/ui/views.js';

const $ = id => document.getElementById(id);
const PAGE_SIZE = 50;
// at most this many namespaces or collections are discovered, one page-of-one listing each
const MAX_NAMES = 100;
// the largest key part ('z' sorts after every other key character): a listing that starts after
// ns/col/LAST begins at the next collection, after ns/LAST/LAST at the next namespace
const LAST = 'z'.repeat(255);
const KEY_PART = /^[A-Za-z0-9._-]{1,255}$/;
const VALUE_CHARS = 80;

let getMe = () => null;
let drawnFor = null; // the caller the view was drawn for: refresh() draws once per sign-in
let generation = 0; // answers of an older selection are dropped
let pages = [null]; // page tokens of the current listing, pages[at] the shown one
let at = 0;
let nextToken = null;
let namesCut = false;

/** Once, when the page loads: {@code getMe()} the signed-in caller or null; {@code redraw()} refreshes the shown view. */
export function setup(me, redraw) {
  getMe = me;
  $('store-namespace').addEventListener('change', () => openNamespace($('store-namespace').value));
  $('store-collection').addEventListener('change', () => firstPage());
  for (const radio of document.querySelectorAll('input[name="store-mode"]')) radio.addEventListener('change', () => firstPage());
  $('store-filter').addEventListener('submit', event => event.preventDefault());
  $('store-reload').addEventListener('click', () => reload());
  $('store-open').addEventListener('submit', event => {
    event.preventDefault();
    openByName($('store-open-namespace').value.trim());
  });
  $('store-first').addEventListener('click', () => firstPage());
  $('store-previous').addEventListener('click', () => { if (at > 0) { at--; drawPage(); } });
  $('store-next').addEventListener('click', () => {
    if (nextToken) { pages = pages.slice(0, at + 1).concat([nextToken]); at++; drawPage(); }
  });
}

/** Draws the view for {@code me} (the whoami answer) the first time it is shown after sign-in; later calls keep what is drawn (Reload reads again). */
export async function refresh(me, redraw) {
  const key = JSON.stringify([me.principal, me.store]);
  if (drawnFor === key) return;
  drawnFor = key;
  await reload();
}

/** On sign-out: removes everything the view drew or kept. */
export function forget() {
  generation++;
  drawnFor = null;
  pages = [null];
  at = 0;
  nextToken = null;
  $('store-body').replaceChildren();
  $('store-peers').replaceChildren();
  $('store-namespace').replaceChildren();
  $('store-collection').replaceChildren();
  $('store-filter').hidden = true;
  $('store-pager').hidden = true;
  $('store-open-namespace').value = '';
  $('store-mode-live').checked = true;
  $('store-status').textContent = '';
}

function grants(me) {
  return me.store || { read: [], write: [], admin: false };
}

function mode() {
  return $('store-mode-raw').checked ? 'raw' : 'live';
}

/** A refusal or failure in words: what could not be done, the status, the server's message. */
function say(what, e) {
  const words = e instanceof ApiError
    ? (e.status === 403 ? what + ': this token may not (HTTP 403). The server says: ' + e.message
      : what + ' (HTTP ' + e.status + '): ' + e.message)
    : what + ': ' + e.message;
  $('store-body').replaceChildren(el('p', { class: 'error', role: 'alert', id: 'store-error' }, words));
  $('store-pager').hidden = true;
  $('store-status').textContent = '';
}

/** The first key of a raw listing at {@code path} after {@code after} (or the first of all), split in its parts; null past the last. */
async function firstKey(path, after) {
  const q = new URLSearchParams({ pageSize: '1' });
  if (after) q.set('startAfter', after);
  const answer = await call('GET', '/store/v1/raw/records' + path + '?' + q);
  return answer.records.length ? answer.records[0].key.split('/') : null;
}

/** Namespaces to offer: with "*" in store.read, discovered by skipping from namespace to namespace; else the grants' names. */
async function namespaces(me) {
  const read = grants(me).read;
  if (!read.includes('*')) return { names: read.slice(), cut: false };
  const names = [];
  let key = await firstKey('', null);
  while (key && names.length < MAX_NAMES) {
    names.push(key[0]);
    key = await firstKey('', key[0] + '/' + LAST + '/' + LAST);
  }
  return { names, cut: key !== null };
}

/** The collections of {@code ns} that hold a record or a tombstone, skipping from collection to collection. */
async function collections(ns) {
  const names = [];
  let key = await firstKey('/' + seg(ns), null);
  while (key && names.length < MAX_NAMES) {
    names.push(key[1]);
    key = await firstKey('/' + seg(ns), ns + '/' + key[1] + '/' + LAST);
  }
  return { names, cut: key !== null };
}

function options(select, names, keep) {
  select.replaceChildren(...names.map(n => el('option', { value: n }, n)));
  if (keep && names.includes(keep)) select.value = keep;
}

/** Reads everything again: namespaces, the selected namespace's collections, the shown page, the peers. */
async function reload() {
  const me = getMe();
  if (!me) return;
  const mine = ++generation;
  const keep = $('store-namespace').value;
  drawPeers(me, mine);
  const read = grants(me).read;
  if (!read.length) {
    $('store-filter').hidden = true;
    $('store-pager').hidden = true;
    $('store-body').replaceChildren(el('p', { class: 'notice', id: 'store-no-grant' },
      'Signed in as ' + me.principal + ', whose token has no store.read grant: it may read no namespace of the store, '
      + 'so there is nothing to browse. A store grant is given in the server\'s auth file (store.read, store.write).'));
    $('store-status').textContent = '';
    return;
  }
  $('store-status').textContent = 'Looking for namespaces…';
  let found;
  try {
    found = await namespaces(me);
  } catch (e) {
    if (mine === generation) say('Cannot list the namespaces of the store', e);
    return;
  }
  if (mine !== generation) return;
  const names = found.names.slice();
  if (keep && !names.includes(keep)) names.push(keep); // a namespace opened by name stays offered
  namesCut = found.cut;
  options($('store-namespace'), names, keep);
  $('store-filter').hidden = false;
  if (!names.length) {
    $('store-collection').replaceChildren();
    $('store-pager').hidden = true;
    $('store-body').replaceChildren(el('p', { class: 'notice' }, 'The store holds no record yet.'));
    $('store-status').textContent = '';
    return;
  }
  await openNamespace($('store-namespace').value, mine, true);
}

async function openByName(ns) {
  if (!KEY_PART.test(ns) || ns === '.' || ns === '..') {
    say('Cannot open namespace "' + ns + '"', new Error('a namespace is 1 to 255 characters of A–Z a–z 0–9 . _ - (not . or ..)'));
    return;
  }
  const select = $('store-namespace');
  if (![...select.options].some(o => o.value === ns)) select.append(el('option', { value: ns }, ns));
  select.value = ns;
  $('store-filter').hidden = false;
  await openNamespace(ns);
}

/**
 * Discovers the collections of {@code ns} and draws the first page of the first one, or with
 * {@code samePage} (Reload) the shown page again while the namespace and collection stay.
 */
async function openNamespace(ns, mine = ++generation, samePage = false) {
  const keep = $('store-collection').value;
  const shown = $('store-table') && $('store-table').dataset.prefix;
  $('store-status').textContent = 'Looking for collections in ' + ns + '…';
  let found;
  try {
    found = await collections(ns);
  } catch (e) {
    if (mine === generation) {
      $('store-collection').replaceChildren();
      say('Cannot list namespace ' + ns, e);
    }
    return;
  }
  if (mine !== generation) return;
  options($('store-collection'), found.names, keep);
  if (!found.names.length) {
    $('store-pager').hidden = true;
    $('store-body').replaceChildren(el('p', { class: 'notice' }, 'Namespace ' + ns + ' holds no record and no tombstone.'));
    $('store-status').textContent = '';
    return;
  }
  const notes = [];
  if (namesCut) notes.push('the first ' + MAX_NAMES + ' namespaces are offered; open another by name');
  if (found.cut) notes.push('the first ' + MAX_NAMES + ' collections of ' + ns + ' are offered');
  $('store-filter').dataset.cut = notes.join('; ');
  if (samePage && shown === ns + '/' + $('store-collection').value) await drawPage(mine);
  else await firstPage(mine);
}

function firstPage(mine) {
  pages = [null];
  at = 0;
  return drawPage(mine);
}

/** Draws page {@code at} of the selected collection in the selected mode. */
async function drawPage(mine = ++generation) {
  const ns = $('store-namespace').value;
  const col = $('store-collection').value;
  if (!ns || !col) return;
  const raw = mode() === 'raw';
  const q = new URLSearchParams({ pageSize: String(PAGE_SIZE) });
  if (pages[at]) q.set('pageToken', pages[at]);
  const focused = document.activeElement && document.activeElement.id;
  let answer;
  try {
    answer = await call('GET', '/store/v1/' + (raw ? 'raw/' : '') + 'records/' + seg(ns) + '/' + seg(col) + '?' + q);
  } catch (e) {
    if (mine === generation) say('Cannot list ' + ns + '/' + col, e);
    return;
  }
  if (mine !== generation) return;
  nextToken = answer.nextPageToken || null;
  const what = raw ? 'records and tombstones' : 'live records';
  const table = el('table', { id: 'store-table', 'data-mode': raw ? 'raw' : 'live', 'data-prefix': ns + '/' + col },
    el('caption', {}, (raw ? 'Raw view: records and tombstones of ' : 'Consumer view: live records of ') + ns + '/' + col
      + ', page ' + (at + 1)),
    el('thead', {}, el('tr', {}, ...['Id', 'Kind', 'Revision', 'Value', 'Author', 'Updated'].concat(raw ? ['Deleted'] : [])
      .map(h => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, ...answer.records.map(r => recordRow(r, raw))));
  const body = [el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Store records' }, table)];
  if (!answer.records.length) body.push(el('p', { class: 'notice' }, 'No ' + what + ' on this page.'));
  $('store-body').replaceChildren(...body);
  $('store-pager').hidden = !(at > 0 || nextToken);
  $('store-first').disabled = at === 0;
  $('store-previous').disabled = at === 0;
  $('store-next').disabled = !nextToken;
  if (focused && $(focused) && $(focused).disabled) table.parentElement.focus();
  const cut = $('store-filter').dataset.cut;
  $('store-status').textContent = answer.records.length + ' ' + what + ' on page ' + (at + 1) + ' of ' + ns + '/' + col
    + (nextToken ? ' (more on the next page)' : '') + '; read at ' + new Date().toLocaleTimeString()
    + '. Press Reload to read again.' + (cut ? ' Note: ' + cut + '.' : '');
}

function utf8Length(text) {
  return new TextEncoder().encode(text).length;
}

/** A record's value as text: at most VALUE_CHARS characters, and its size in bytes. */
export function value(record) {
  const b = record.body || {};
  if (record.kind === 'tombstone') return record.deletedBlob ? 'blob ' + String(record.deletedBlob).slice(0, 12) + '… (kept for the tombstone)' : '—';
  if (typeof b.text === 'string') {
    const chars = [...b.text];
    const shown = chars.length > VALUE_CHARS ? chars.slice(0, VALUE_CHARS).join('') + '…' : b.text;
    return JSON.stringify(shown) + ' (' + utf8Length(b.text) + ' bytes)';
  }
  if (typeof b.base64 === 'string') {
    const pad = (b.base64.match(/=+$/) || [''])[0].length;
    return 'binary (' + (Math.floor(b.base64.length * 3 / 4) - pad) + ' bytes)';
  }
  if (b.blob) return 'blob ' + String(b.blob).slice(0, 12) + '… (' + b.length + ' bytes)';
  return '—';
}

function revision(r) {
  return r.revision ? r.revision.counter + ':' + String(r.revision.hash).slice(0, 12) : '—';
}

function recordRow(r, raw) {
  const parts = r.key.split('/');
  const meta = r.meta || {};
  const tomb = r.kind === 'tombstone';
  const cells = [
    el('td', {}, parts.slice(2).join('/')),
    el('td', {}, r.kind),
    el('td', { class: 'mono revision' }, revision(r)),
    el('td', { class: 'value' }, value(r)),
    el('td', {}, meta.author || '—'),
    el('td', {}, when(meta.updated)),
  ];
  // a tombstone's author is its deleter when one was named (docs/store-format.md)
  if (raw) cells.push(el('td', { 'data-deleted': tomb ? 'yes' : 'no' },
    tomb ? 'by ' + (meta.author || 'an unnamed deleter') + ' at ' + when(r.deletedAt) : 'live'));
  return el('tr', { 'data-key': r.key, 'data-kind': r.kind, class: tomb ? 'tombstone' : null }, ...cells);
}

/** A peer URI with its user info and the values of query and ;-parameters that may hold a secret replaced by ***. */
export function maskUri(uri) {
  let s = String(uri).replace(/^([A-Za-z][A-Za-z0-9+.:-]*:\/\/)[^/?#@]*@/, '$1***@');
  s = s.replace(/([;&?])([^=;&?#]*)=([^;&#]*)/g, (whole, sep, name, v) =>
    /^(region|path-style|currentschema|sslmode)$/i.test(name) ? whole
      : sep + name + '=' + (/^endpoint$/i.test(name) ? maskUri(v) : '***'));
  return s;
}

/** For a store admin: the peers the store remembers (GET /store/v1/ledger/peers); nothing for anyone else. */
async function drawPeers(me, mine) {
  const box = $('store-peers');
  if (!grants(me).admin) { box.replaceChildren(); return; }
  let answer;
  let ledger;
  try {
    [ledger, answer] = await Promise.all([call('GET', '/store/v1/ledger'), call('GET', '/store/v1/ledger/peers')]);
  } catch (e) {
    if (mine === generation) box.replaceChildren(el('p', { class: 'error', role: 'alert' },
      'Cannot read the peers the store remembers (HTTP ' + e.status + '): ' + e.message));
    return;
  }
  if (mine !== generation) return;
  const rows = answer.peers.map(p => el('tr', { 'data-peer': p.id },
    el('td', { class: 'mono' }, p.id),
    el('td', { class: 'uri' }, maskUri(p.uri)),
    el('td', {}, when(p.lastSync)),
    el('td', {}, (p.clockOffset >= 0 ? '+' : '') + p.clockOffset + ' ms'),
    el('td', {}, p.collectCutoff === null || p.collectCutoff === undefined ? 'never' : when(p.collectCutoff))));
  box.replaceChildren(
    el('h3', { id: 'store-peers-title' }, 'Peers this store remembers'),
    el('p', { class: 'status' }, 'Store id ', el('span', { class: 'mono' }, ledger.id), '; last collect cutoff ',
      ledger.collectCutoff === undefined || ledger.collectCutoff === null ? 'never' : when(ledger.collectCutoff),
      '. Secrets in a URI (user info, passwords, tokens) are shown as ***.'),
    rows.length
      ? el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'store-peers-title' },
        el('table', { id: 'store-peers-table' },
          el('caption', {}, 'Stores this one synced with, as recorded by each sync'),
          el('thead', {}, el('tr', {}, ...['Id', 'Last seen as', 'Last sync', 'Clock offset', 'Last collect']
            .map(h => el('th', { scope: 'col' }, h)))),
          el('tbody', {}, ...rows)))
      : el('p', { class: 'notice' }, 'No peer yet: the store has not synced with another store.'));
}
