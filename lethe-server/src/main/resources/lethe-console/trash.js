// The Trash view of the operator console (docs/design/0449-operator-console.md §7): the retained
// (soft-deleted) tables of one catalog, every namespace walked, with a live countdown to each
// deadline, and Undrop / Purge now behind a confirm dialog that shows the purge preview's counts.
import { call, catalogPath, seg, ApiError } from '/ui/api.js';
import { el, when, age } from '/ui/views.js';

const $ = id => document.getElementById(id);
/** The namespace walk's bounds: namespaces visited, levels deep. */
export const MAX_NAMESPACES = 500;
export const MAX_DEPTH = 16;
const SEPARATOR = '\u001f';
const PARALLEL = 6;

let getMe = () => null;
let redrawAll = () => {};
let lastDrawn = null;
let ticker = null;
let pending = null; // the row the dialog acts on: { action, row, catalog }

/** Once, when the page loads: {@code getMe()} the signed-in caller or null; {@code redraw()} refreshes the shown view. */
export function setup(me, redraw) {
  getMe = me;
  redrawAll = redraw;
  $('trash-filter').addEventListener('change', () => { lastDrawn = null; redrawAll(); });
  $('trash-filter').addEventListener('submit', event => event.preventDefault());
  $('trash-confirm').addEventListener('close', onClose);
}

/** Redraws the view for {@code me} (the whoami answer); throws the ApiError of a failed call. */
export async function refresh(me, redraw) {
  const select = $('trash-catalog');
  const names = me.catalogs.map(c => c.name);
  if ([...select.options].map(o => o.value).join('\n') !== names.join('\n')) {
    const keep = select.value;
    select.replaceChildren(...names.map(n => el('option', { value: n }, n)));
    if (names.includes(keep)) select.value = keep;
  }
  const catalog = select.value || names[0];
  if (!catalog) { $('trash-status').textContent = 'This token reads no catalog.'; return; }
  const grant = me.catalogs.find(c => c.name === catalog) || {};
  const walk = await walkNamespaces(me, catalog);
  const groups = await pool(walk.namespaces, ns => retainedIn(me, catalog, ns));
  const shown = groups.filter(g => g.rows.length);
  // redraw only when the data changed, and give the focus back to the same button (as the Jobs
  // view does): a keyboard user tabbing through the rows keeps their place
  const drawn = JSON.stringify([catalog, me.admin, !!grant.write, shown]);
  if (drawn !== lastDrawn) {
    lastDrawn = drawn;
    const focused = document.activeElement;
    const again = focused && focused.dataset && focused.dataset.action && focused.closest('#trash-body')
      ? { action: focused.dataset.action, row: focused.closest('tr').dataset.row } : null;
    $('trash-body').replaceChildren(...shown.map(g => namespaceTable(g, catalog, me.admin, !!grant.write)));
    if (again) {
      const target = [...$('trash-body').querySelectorAll('button[data-action]')]
        .find(b => b.dataset.action === again.action && b.closest('tr').dataset.row === again.row);
      if (target) target.focus();
    }
    tick();
  }
  startTicker();
  const count = shown.reduce((n, g) => n + g.rows.length, 0);
  let status = count + ' retained table(s) in ' + catalog + ' across ' + walk.namespaces.length + ' namespace(s)';
  if (walk.cut) status += '; ' + walk.cut;
  $('trash-status').textContent = status + '; updated ' + new Date().toLocaleTimeString() + '.';
}

/** On sign-out: removes everything the view drew or kept. */
export function forget() {
  stopTicker();
  pending = null;
  if ($('trash-confirm').open) $('trash-confirm').close('cancel');
  $('trash-body').replaceChildren();
  $('trash-catalog').replaceChildren();
  $('trash-status').textContent = '';
  $('trash-answer').textContent = '';
  $('trash-preview').replaceChildren();
  lastDrawn = null;
}

/**
 * Every namespace of the catalog, breadth first through the Iceberg listing's {@code parent=},
 * at most MAX_NAMESPACES of them and MAX_DEPTH levels deep; {@code cut} says what a bound left out.
 */
async function walkNamespaces(me, catalog) {
  const found = [];
  let level = [[]];
  let cut = null;
  for (let depth = 1; level.length; depth++) {
    const children = (await pool(level, parent => namespacesUnder(catalog, parent))).flat();
    if (children.length && depth > MAX_DEPTH) {
      cut = 'namespaces deeper than ' + MAX_DEPTH + ' levels were not walked';
      break;
    }
    const room = MAX_NAMESPACES - found.length;
    if (children.length > room) {
      found.push(...children.slice(0, room));
      cut = 'the walk stopped at ' + MAX_NAMESPACES + ' namespaces; tables in the others are not shown';
      break;
    }
    found.push(...children);
    level = children;
  }
  found.sort((a, b) => a.join(SEPARATOR) < b.join(SEPARATOR) ? -1 : a.join(SEPARATOR) > b.join(SEPARATOR) ? 1 : 0);
  return { namespaces: found, cut };
}

async function namespacesUnder(catalog, parent) {
  const all = [];
  let pageToken = null;
  do {
    const q = new URLSearchParams({ pageSize: '1000' });
    if (parent.length) q.set('parent', parent.join(SEPARATOR));
    if (pageToken) q.set('pageToken', pageToken);
    let answer;
    try {
      answer = await call('GET', '/iceberg/v1/' + seg(catalog) + '/namespaces?' + q);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && parent.length) return all; // dropped meanwhile
      throw e;
    }
    all.push(...answer.namespaces);
    pageToken = answer['next-page-token'] || answer.nextPageToken || null;
    if (all.length > MAX_NAMESPACES) break;
  } while (pageToken);
  return all;
}

async function retainedIn(me, catalog, ns) {
  const rows = [];
  let pageToken = null;
  do {
    const q = new URLSearchParams({ deleted: 'true', pageSize: '1000' });
    if (pageToken) q.set('pageToken', pageToken);
    let answer;
    try {
      answer = await call('GET', catalogPath(me, catalog) + '/schemas/' + seg(ns.join(SEPARATOR)) + '/tables?' + q);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) break; // the namespace was dropped since the walk
      throw e;
    }
    rows.push(...answer.deleted);
    pageToken = answer.nextPageToken;
  } while (pageToken);
  return { namespace: ns, rows };
}

/** Runs {@code fn} over {@code items}, PARALLEL at a time; the answers in the items' order. */
async function pool(items, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return out;
}

function namespaceTable(group, catalog, admin, write) {
  const name = group.namespace.join('.');
  const caption = 'Retained tables of namespace ' + name;
  return el('div', { class: 'trash-ns', 'data-namespace': name },
    el('h3', {}, 'Namespace ', name),
    el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
      el('table', {},
        el('caption', {}, caption),
        el('thead', {}, el('tr', {}, ...['Table', 'Dropped by', 'Dropped at', 'Time left', 'Undrop', 'Purge', 'Actions']
          .map(h => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...group.rows.map(t => tableRow(group.namespace, t, catalog, admin, write))))));
}

function tableRow(namespace, t, catalog, admin, write) {
  const full = [...namespace, t.name].join('.');
  const buttons = [];
  if (t.state === 'DELETED' && write) buttons.push(button('undrop', 'Undrop', full, namespace, t, catalog));
  if (t.state === 'DELETED' && admin) buttons.push(button('purge', 'Purge now', full, namespace, t, catalog));
  const actions = el('td', {});
  if (buttons.length) actions.append(el('div', { class: 'actions' }, ...buttons));
  return el('tr', { 'data-row': [...namespace, t.name].join(SEPARATOR), 'data-table': full, 'data-state': t.state },
    el('td', {}, t.name),
    el('td', { 'data-field': 'deleted-by' }, t.deletedBy),
    el('td', {}, when(t.deletedAt)),
    el('td', { 'data-field': 'time-left', 'data-deadline': t.retentionExpiresAt, 'data-held': t.held ? 'true' : null,
      'data-purging': t.state === 'PURGING' ? 'true' : null }, ''),
    el('td', { 'data-field': 'undrop', class: t.recoverable ? null : 'err' }, undropSays(t)),
    el('td', { 'data-field': 'purge' }, purgeSays(t)),
    actions);
}

function button(action, label, full, namespace, t, catalog) {
  const b = el('button', { type: 'button', 'data-action': action, 'aria-label': label + ' ' + full }, label);
  b.addEventListener('click', () => openDialog(action, namespace, t, catalog));
  return b;
}

function undropSays(t) {
  if (t.recoverable) return t.held ? 'possible (a legal hold keeps it past its deadline)' : 'possible';
  if (t.state === 'PURGING') return 'no: a purge owns it';
  if (t.reason) return 'would be hollow: ' + t.reason;
  return 'no: its retention deadline passed';
}

function purgeSays(t) {
  if (t.state === 'PURGING') return 'purging; cleanup job ' + (t.purgeJobState || 'finishing');
  return t.purgeRequested ? 'at the deadline: files deleted' : 'at the deadline: entry removed, files kept';
}

/** The countdown cells, from the deadlines drawn; every second while the view shows. */
function tick() {
  if ($('trash').hidden) { stopTicker(); return; }
  const now = Date.now();
  for (const cell of $('trash-body').querySelectorAll('td[data-deadline]')) {
    const left = Number(cell.dataset.deadline) - now;
    let text;
    if (cell.dataset.purging) text = 'purging';
    else if (left > 0) text = age(left);
    else text = cell.dataset.held ? 'held (deadline passed)' : 'expired';
    if (cell.textContent !== text) cell.textContent = text;
  }
}

function startTicker() {
  if (ticker === null) {
    ticker = setInterval(tick, 1000);
    $('trash').dataset.ticking = 'true';
  }
}

function stopTicker() {
  if (ticker !== null) clearInterval(ticker);
  ticker = null;
  delete $('trash').dataset.ticking;
  // a dialog left open over a view that is no longer shown would keep the page inert
  if ($('trash-confirm').open) $('trash-confirm').close('cancel');
}

const SAYS = {
  undrop: 'Undrop puts the table back at its name for every Iceberg client, with its snapshots and rows; the purge below then does not happen.',
  purge: 'Purge now ends the retention window at once: a cleanup job deletes the files counted below (or, for a drop without purgeRequested, removes the entry and keeps every file). It cannot be undone.',
};

async function openDialog(action, namespace, t, catalog) {
  const me = getMe();
  if (!me) return;
  const full = [...namespace, t.name].join('.');
  pending = { action, namespace, table: t, catalog, full };
  const label = action === 'undrop' ? 'Undrop' : 'Purge now';
  $('trash-confirm-title').textContent = label + ' ' + full + '?';
  $('trash-confirm-text').textContent = SAYS[action] + ' (catalog ' + catalog + ', dropped by ' + t.deletedBy + ' at ' + when(t.deletedAt) + ')';
  $('trash-confirm-ok').textContent = label;
  $('trash-preview').replaceChildren(el('p', {}, 'Reading the purge preview…'));
  $('trash-confirm').returnValue = '';
  $('trash-confirm').showModal();
  let preview;
  try {
    preview = await call('GET', tablePath(me, catalog, namespace, t.name) + '/purge-preview');
  } catch (e) {
    // the message may name a storage path: this dialog shows counts only
    if (pending && pending.full === full) {
      $('trash-preview').replaceChildren(el('p', { class: 'error', 'data-preview': 'failed' },
        'No purge preview (' + (e instanceof ApiError ? 'HTTP ' + e.status : 'no answer') + '): the server could not plan a purge of this table; its files may be missing or unreadable.'));
    }
    return;
  }
  if (pending && pending.full === full && $('trash-confirm').open) $('trash-preview').replaceChildren(...previewFacts(preview));
}

function tablePath(me, catalog, namespace, name) {
  return catalogPath(me, catalog) + '/schemas/' + seg(namespace.join(SEPARATOR)) + '/tables/' + seg(name);
}

const KINDS = [
  ['dataFiles', 'Data files'], ['deleteFiles', 'Delete files'], ['manifests', 'Manifests'], ['manifestLists', 'Manifest lists'],
  ['statisticsFiles', 'Statistics files'], ['metadataFiles', 'Metadata files'], ['other', 'Other files under the table']];

function bytes(n) {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Number(n) || 0;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return u === 0 ? v + ' bytes' : v.toFixed(1) + ' ' + units[u] + ' (' + Number(n).toLocaleString('en-US') + ' bytes)';
}

/** Counts and bytes of the preview (docs/design/0442-purge-preview.md); never a path, a sample or a property. */
function previewFacts(p) {
  if (p.wouldFail) {
    return [el('p', { class: 'error', 'data-preview': 'would-fail' },
      'A purge of this table would fail before deleting anything (its manifest list cannot be read or its location cannot be confined).')];
  }
  const d = p.wouldDelete;
  const facts = el('dl', { class: 'facts', 'data-preview': 'facts' });
  const fact = (name, value, id) => facts.append(el('dt', {}, name), el('dd', { 'data-fact': id }, value));
  fact('A purge would delete', d.total + ' file(s), ' + bytes(d.bytes) + (d.exact ? '' : ' (estimate)'), 'would-delete');
  for (const [key, label] of KINDS) {
    const k = d.bytesByKind && d.bytesByKind[key];
    if (k && k.files) fact(label, k.files + ', ' + bytes(k.bytes), 'kind-' + key);
  }
  fact('Named but already gone', p.alreadyGone.files + ' file(s)', 'already-gone');
  const reasons = Object.entries(p.wouldKeep.reasons || {}).filter(([, t]) => t.files)
    .map(([reason, t]) => reason.toLowerCase().replaceAll('_', ' ') + ': ' + t.files);
  fact('Would keep', p.wouldKeep.total + ' file(s)' + (reasons.length ? ' (' + reasons.join(', ') + ')' : ''), 'would-keep');
  if (p.gcEnabled === false) fact('Table property gc.enabled', 'false: the purge keeps the data files', 'gc-enabled');
  return [el('p', {}, 'Purge preview (' + (p.state === 'DELETED' ? 'the retained table' : 'a live table') + ', counted now):'), facts];
}

async function onClose() {
  const dialog = $('trash-confirm');
  const act = pending;
  pending = null;
  $('trash-preview').replaceChildren();
  if (!act || dialog.returnValue !== 'ok') return;
  const me = getMe();
  if (!me) return;
  const label = act.action === 'undrop' ? 'Undrop' : 'Purge now';
  const path = tablePath(me, act.catalog, act.namespace, act.table.name) + '/' + (act.action === 'undrop' ? 'undrop' : 'purge');
  try {
    const result = await call('POST', path);
    $('trash-answer').textContent = act.action === 'undrop'
      ? label + ' ' + act.full + ': done; the table is back at its name (entity id ' + result.entityId + ').'
      : label + ' ' + act.full + ': ' + (result && result.purgeRequested === false
        ? 'done; the entry is removed and its files are kept (it was dropped without purgeRequested).'
        : 'started; cleanup job ' + (result && result.purgeJobState || 'PENDING') + ' (follow it in Jobs).');
  } catch (e) {
    $('trash-answer').textContent = label + ' ' + act.full + (e instanceof ApiError ? ' refused (HTTP ' + e.status + '): ' : ' failed: ') + e.message;
  }
  lastDrawn = null;
  redrawAll();
}
