// The Protection and holds view of the operator console (docs/design/0449-operator-console.md "Protection and holds view"):
// the holds and protections of one catalog, the jobs each hold keeps waiting, and for an admin the
// forms and buttons to place, release, set and clear them. No server string goes through innerHTML.
import { call, jobs, catalogPath, seg, ApiError } from '/ui/api.js';
import { el, when, objectName } from '/ui/views.js';

const $ = id => document.getElementById(id);
// how the purge worker's last_error of a job waiting for a hold starts (HeldJobs.reason):
// "waiting for legal hold <id> on …"
const WAITING = 'waiting for legal hold ';

let getMe = () => null;
let redraw = () => {};
let lastDrawn = null;
// the rows as last drawn, by their data-key, for the buttons' handlers
let holdsByKey = new Map();
let protectionsByKey = new Map();

/** Once, when the page loads: {@code getMe()} the signed-in caller or null; {@code redraw()} refreshes the shown view. */
export function setup(me, again) {
  getMe = me;
  redraw = again;
  $('holds-catalog').addEventListener('change', () => { lastDrawn = null; say(''); redraw(); });
  $('holds-released').addEventListener('change', () => redraw());
  $('holds-filter').addEventListener('submit', event => event.preventDefault());
  $('holds-place-form').addEventListener('submit', event => { event.preventDefault(); place(); });
  $('holds-protect-form').addEventListener('submit', event => { event.preventDefault(); protect(); });
  // the Release / Clear buttons of every row, by delegation: the rows are redrawn
  $('holds-body').addEventListener('click', event => {
    const button = event.target.closest('button[data-action]');
    if (!button) return;
    const key = button.closest('tr').dataset.key;
    if (button.dataset.action === 'release' && holdsByKey.has(key)) release(holdsByKey.get(key));
    if (button.dataset.action === 'clear' && protectionsByKey.has(key)) clear(protectionsByKey.get(key));
  });
}

function catalog(me) {
  return $('holds-catalog').value || (me.catalogs[0] && me.catalogs[0].name);
}

function say(text) {
  $('holds-answer').textContent = text;
}

/** The catalog select, filled from whoami once per sign-in. */
function fillCatalogs(me) {
  const select = $('holds-catalog');
  const names = me.catalogs.map(c => c.name);
  if ([...select.options].map(o => o.value).join('\n') !== names.join('\n')) {
    select.replaceChildren(...names.map(n => el('option', { value: n }, n)));
  }
}

/** Redraws the view for {@code me} (the whoami answer); throws the ApiError of a failed call. */
export async function refresh(me) {
  fillCatalogs(me);
  for (const id of ['holds-place-form', 'holds-protect-form', 'holds-ns-hint']) $(id).hidden = !me.admin;
  const c = catalog(me);
  if (!c) { $('holds-status').textContent = 'This token reads no catalog.'; return; }
  const base = catalogPath(me, c);
  const released = $('holds-released').checked;
  const [hs, ps, pending] = await Promise.all([
    call('GET', base + '/holds' + (released ? '?include=released' : '')),
    call('GET', base + '/protections'),
    jobs(me, c, 'PENDING')]);
  const now = Date.now();
  const waiting = pending.filter(j => typeof j.lastError === 'string' && j.lastError.startsWith(WAITING));
  const rows = hs.holds.map(h => ({ hold: h, expired: h.expiresAt !== null && h.expiresAt <= now,
    // only what is shown: a held job's next look moves every minute, which is no reason to redraw
    blocked: waiting.filter(j => j.lastError.startsWith(WAITING + h.id + ' '))
      .map(j => ({ id: j.id, objectType: j.objectType, namespace: j.namespace, name: j.name })) }));
  // redraw only when what is shown changed, and give the focus back to the same button: a
  // keyboard user must not lose their place every refresh (as the Jobs view does)
  const drawn = JSON.stringify([c, me.admin, released, rows, ps.protections]);
  if (drawn !== lastDrawn) {
    lastDrawn = drawn;
    const focused = document.activeElement;
    const again = focused && focused.dataset && focused.dataset.action && focused.closest('#holds-body tr')
      ? 'tr[data-key="' + CSS.escape(focused.closest('tr').dataset.key) + '"] [data-action="' + focused.dataset.action + '"]' : null;
    $('holds-body').replaceChildren(holdTable(c, rows, me.admin), protectionTable(c, ps.protections, me.admin));
    const target = again && $('holds-body').querySelector(again);
    if (target) target.focus();
  }
  const inForce = rows.filter(r => !r.hold.releasedAt && !r.expired).length;
  $('holds-status').textContent = inForce + ' hold(s) in force, ' + ps.protections.length + ' protection(s), '
    + waiting.length + ' job(s) held back in ' + c + '; updated ' + new Date(now).toLocaleTimeString() + '.';
}

function target(kind, namespace, name) {
  return kind + ' ' + (name === null || name === undefined ? namespace.join('.') : objectName({ namespace, name }));
}

function keyOf(kind, namespace, name) {
  return JSON.stringify([kind, namespace, name]);
}

function holdState(row) {
  const h = row.hold;
  if (h.releasedAt) return 'released by ' + h.releasedBy + ' at ' + when(h.releasedAt);
  if (row.expired) return 'expired: blocks nothing until placed again';
  return 'in force';
}

function holdTable(c, rows, admin) {
  holdsByKey = new Map();
  const head = ['Target', 'Placed by', 'Reason', 'Placed at', 'Until', 'State', 'Holding back'];
  if (admin) head.push('Actions');
  const body = el('tbody', {});
  for (const row of rows) {
    const h = row.hold;
    const key = h.id;
    holdsByKey.set(key, h);
    const blocked = row.blocked.length
      ? el('ul', { class: 'held-jobs' }, ...row.blocked.map(j => el('li', { 'data-job': j.id },
        'job ' + j.id + ' ' + j.objectType + ' ' + objectName(j))))
      : 'nothing';
    const cells = [
      el('td', {}, target(h.kind, h.namespace, h.name)),
      el('td', {}, h.placedBy),
      el('td', {}, h.reason),
      el('td', {}, when(h.placedAt)),
      el('td', {}, h.expiresAt === null ? 'until released' : when(h.expiresAt)),
      el('td', { class: h.releasedAt || row.expired ? 'muted' : 'held' }, holdState(row)),
      el('td', { class: 'holding-back' }, blocked)];
    if (admin) {
      cells.push(el('td', {}, h.releasedAt ? '' : el('button', { type: 'button', 'data-action': 'release',
        'aria-label': 'Release the hold on ' + target(h.kind, h.namespace, h.name) }, 'Release')));
    }
    body.append(el('tr', { 'data-key': key, 'data-hold': h.id, 'data-state': h.releasedAt ? 'released' : row.expired ? 'expired' : 'active' },
      ...cells));
  }
  if (!rows.length) body.append(el('tr', {}, el('td', { colspan: head.length }, 'No hold in ' + c + '.')));
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Legal holds table' },
    el('table', { id: 'holds-table' },
      el('caption', {}, 'Legal holds: no file they cover is purged while in force'),
      el('thead', {}, el('tr', {}, ...head.map(t => el('th', { scope: 'col' }, t)))),
      body));
}

function protectionTable(c, list, admin) {
  protectionsByKey = new Map();
  const head = ['Target', 'Set by', 'Reason', 'Set at'];
  if (admin) head.push('Actions');
  const body = el('tbody', {});
  for (const p of list) {
    const key = keyOf(p.kind, p.namespace, p.name);
    protectionsByKey.set(key, p);
    const cells = [el('td', {}, target(p.kind, p.namespace, p.name)), el('td', {}, p.setBy),
      el('td', {}, p.reason || '—'), el('td', {}, when(p.setAt))];
    if (admin) {
      cells.push(el('td', {}, el('button', { type: 'button', 'data-action': 'clear',
        'aria-label': 'Clear the protection of ' + target(p.kind, p.namespace, p.name) }, 'Clear')));
    }
    body.append(el('tr', { 'data-key': key, 'data-protection': target(p.kind, p.namespace, p.name) }, ...cells));
  }
  if (!list.length) body.append(el('tr', {}, el('td', { colspan: head.length }, 'No protection in ' + c + '.')));
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': 'Drop protections table' },
    el('table', { id: 'protections-table' },
      el('caption', {}, 'Drop protections: no drop removes these names until cleared'),
      el('thead', {}, el('tr', {}, ...head.map(t => el('th', { scope: 'col' }, t)))),
      body));
}

/** Asks in the modal dialog; resolves true on Confirm. */
function confirm(title, text) {
  return new Promise(resolve => {
    const dialog = $('holds-confirm');
    $('holds-confirm-title').textContent = title;
    $('holds-confirm-text').textContent = text;
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.returnValue = '';
    dialog.showModal();
  });
}

function levels(text) {
  return text.trim().split('.').map(l => l.trim());
}

/** The form's target, checked: a specific message for what is missing or unknown, else the target. */
async function readTarget(me, c, prefix) {
  const kind = $(prefix + '-kind').value;
  const nsText = $(prefix + '-namespace').value.trim();
  const name = $(prefix + '-name').value.trim();
  if (!nsText) throw new Error('Type the namespace (levels separated by dots, e.g. sales or sales.eu).');
  const namespace = levels(nsText);
  if (namespace.some(l => !l)) throw new Error('The namespace "' + nsText + '" has an empty level.');
  if (kind !== 'namespace' && !name) throw new Error('Type the ' + kind + ' name.');
  // the server takes any well-formed name (a hold or protection may name an absent object on
  // purpose, through the CLI); the page refuses a name it cannot find, which catches typos
  const ice = '/iceberg/v1/' + seg(c) + '/namespaces/' + seg(namespace.join('\u001f'));
  try {
    if (kind === 'namespace') {
      await call('GET', ice);
    } else {
      const listed = await call('GET', ice + '/' + (kind === 'view' ? 'views' : 'tables') + '?pageSize=1000');
      const found = listed.identifiers.some(i => i.name === name);
      let retained = false;
      if (!found && kind === 'table') {
        // a dropped table is still worth holding while it is retained or its purge has not ended
        const deleted = await call('GET', catalogPath(me, c) + '/schemas/' + seg(namespace.join('.')) + '/tables?deleted=true&pageSize=1000');
        const open = await jobs(me, c);
        retained = deleted.deleted.some(t => t.name === name) || open.some(j => j.objectType === 'TABLE'
          && ['PENDING', 'RUNNING', 'FAILED'].includes(j.state) && j.name === name && j.namespace.join('\u001f') === namespace.join('\u001f'));
      }
      if (!found && !retained) throw new Error('No ' + kind + ' ' + nsText + '.' + name + ' in catalog ' + c + ': nothing was changed.');
    }
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) throw new Error('No namespace ' + nsText + ' in catalog ' + c + ': nothing was changed.');
    throw e;
  }
  return { kind, namespace, name: kind === 'namespace' ? null : name };
}

/** The 'until' field: null (no end), ms since epoch, or an Error for a half-typed value. */
function readUntil() {
  const input = $('holds-place-until');
  if (input.validity.badInput) throw new Error('The "until" date and time is incomplete: finish it (day, month, year, hour and minute) or clear it.');
  if (!input.value) return null;
  const ms = new Date(input.value).getTime();
  if (Number.isNaN(ms)) throw new Error('The "until" date and time is not a valid one.');
  return ms;
}

async function place() {
  const me = getMe();
  if (!me) return;
  const c = catalog(me);
  let body;
  try {
    const reason = $('holds-place-reason').value.trim();
    const until = readUntil();
    if (!reason) throw new Error('A hold needs a reason (e.g. a case number): nothing was placed.');
    const t = await readTarget(me, c, 'holds-place');
    body = { kind: t.kind, namespace: t.namespace, reason };
    if (t.name !== null) body.name = t.name;
    if (until !== null) body.expiresAt = until;
  } catch (e) {
    say('Place hold: ' + e.message);
    return;
  }
  const what = target(body.kind, body.namespace, body.name);
  if (!await confirm('Place a legal hold on ' + what + '?', 'No file of it is purged until the hold is released'
    + (body.expiresAt ? ' or ends at ' + when(body.expiresAt) : '') + '. Reason: ' + body.reason)) return;
  try {
    const placed = await call('PUT', catalogPath(me, c) + '/holds', body);
    const running = placed.runningPurges && placed.runningPurges.length
      ? ' Purges already running when it was placed (they may have deleted files before it): ' + placed.runningPurges.join(', ') + '.' : '';
    say('Placed hold ' + placed.id + ' on ' + what + '.' + running);
    $('holds-place-form').reset();
  } catch (e) {
    say('Place hold on ' + what + ' refused (HTTP ' + e.status + '): ' + e.message);
  }
  redraw();
}

async function protect() {
  const me = getMe();
  if (!me) return;
  const c = catalog(me);
  let body;
  try {
    const t = await readTarget(me, c, 'holds-protect');
    body = { kind: t.kind, namespace: t.namespace, reason: $('holds-protect-reason').value.trim() };
    if (t.name !== null) body.name = t.name;
  } catch (e) {
    say('Set protection: ' + e.message);
    return;
  }
  const what = target(body.kind, body.namespace, body.name);
  if (!await confirm('Protect ' + what + '?', 'No drop removes it until the protection is cleared.'
    + (body.reason ? ' Reason: ' + body.reason : ''))) return;
  try {
    await call('PUT', catalogPath(me, c) + '/protections', body);
    say('Protected ' + what + '.');
    $('holds-protect-form').reset();
  } catch (e) {
    say('Protect ' + what + ' refused (HTTP ' + e.status + '): ' + e.message);
  }
  redraw();
}

function query(kind, namespace, name) {
  const q = new URLSearchParams({ kind, namespace: JSON.stringify(namespace) });
  if (name !== null && name !== undefined) q.set('name', name);
  return q;
}

async function release(h) {
  const me = getMe();
  if (!me) return;
  const c = catalog(me);
  const what = target(h.kind, h.namespace, h.name);
  if (!await confirm('Release the hold on ' + what + '?', 'Its waiting purges become claimable at once. Placed by '
    + h.placedBy + ': ' + h.reason)) return;
  try {
    const answer = await call('DELETE', catalogPath(me, c) + '/holds?' + query(h.kind, h.namespace, h.name));
    say('Released the hold on ' + what + ' (' + answer.released.map(r => r.id).join(', ') + ').');
  } catch (e) {
    say('Release the hold on ' + what + ' refused (HTTP ' + e.status + '): ' + e.message);
  }
  redraw();
}

async function clear(p) {
  const me = getMe();
  if (!me) return;
  const c = catalog(me);
  const what = target(p.kind, p.namespace, p.name);
  if (!await confirm('Clear the protection of ' + what + '?', 'A drop may then remove it.')) return;
  try {
    await call('DELETE', catalogPath(me, c) + '/protections?' + query(p.kind, p.namespace, p.name));
    say('Cleared the protection of ' + what + '.');
  } catch (e) {
    say('Clear the protection of ' + what + ' refused (HTTP ' + e.status + '): ' + e.message);
  }
  redraw();
}

/** On sign-out: removes everything the view drew or kept. */
export function forget() {
  $('holds-body').replaceChildren();
  $('holds-status').textContent = '';
  say('');
  lastDrawn = null;
  holdsByKey = new Map();
  protectionsByKey = new Map();
  $('holds-catalog').replaceChildren();
  $('holds-place-form').reset();
  $('holds-protect-form').reset();
  if ($('holds-confirm').open) $('holds-confirm').close();
}
