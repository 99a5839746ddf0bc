// The operator console's main module (docs/design/0449-operator-console.md): sign-in, the two
// views, and their refresh every few seconds. No data ever goes through innerHTML.
import { call, jobs, summary, catalogPath, token, keepToken, forgetToken, ApiError, seg } from '/ui/api.js';
import { el, overviewCard, jobRow, receiptFacts, ENDED } from '/ui/views.js';
import * as trash from '/ui/trash.js';
import * as holds from '/ui/holds.js';
import * as store from '/ui/store.js';

const REFRESH_MS = 3000;
const $ = id => document.getElementById(id);
let me = null;
let timer = null;
let lastJobs = null;
// the one refresh running now (null when none), and whether another was asked for meanwhile
let refreshing = null;
let refreshAgain = false;
// the job whose receipt the dialog shows or is loading
let receiptJob = null;

// each view: its section id (also its #hash and its tab's id 'tab-' + id) and the function that
// redraws it (called on showing the view and every REFRESH_MS while it shows)
const VIEWS = {
  overview: () => refreshOverview(),
  jobs: () => refreshJobs(),
  trash: () => trash.refresh(me, refresh),
  holds: () => holds.refresh(me, refresh),
  store: () => store.refresh(me, refresh),
};
// a view in its own module exports setup(getMe, refresh) (once, on load), refresh(me, refresh)
// and forget() (on sign-out: drop everything it drew or kept)
const MODULES = [trash, holds, store];

function show(view) {
  for (const id of ['sign-in', ...Object.keys(VIEWS)]) $(id).hidden = id !== view;
  for (const id of Object.keys(VIEWS)) {
    const tab = $('tab-' + id);
    if (id === view) tab.setAttribute('aria-current', 'page'); else tab.removeAttribute('aria-current');
  }
}

function currentView() {
  const view = location.hash.slice(1);
  return Object.hasOwn(VIEWS, view) ? view : 'overview';
}

async function signIn(value) {
  keepToken(value);
  try {
    me = await call('GET', '/api/whoami');
  } catch (e) {
    forgetToken();
    me = null;
    $('sign-in-error').textContent = e instanceof ApiError && e.status === 401
      ? 'The server did not accept this token: ' + e.message
      : 'Cannot sign in: ' + e.message;
    return;
  }
  $('sign-in-error').textContent = '';
  $('token').value = '';
  $('who').textContent = 'Signed in as ' + me.principal + (me.admin ? ' (admin)' : ' (read-only: no admin actions)');
  $('sign-out').hidden = false;
  $('tabs').hidden = false;
  const select = $('jobs-catalog');
  select.replaceChildren(...me.catalogs.map(c => el('option', { value: c.name }, c.name)));
  route();
}

function signOut() {
  forgetToken();
  me = null;
  clearTimeout(timer);
  $('who').textContent = '';
  $('sign-out').hidden = true;
  $('tabs').hidden = true;
  $('overview-body').replaceChildren();
  $('jobs-table').tBodies[0].replaceChildren();
  lastJobs = null;
  $('jobs-answer').textContent = '';
  receiptJob = null;
  if ($('receipt').open) $('receipt').close();
  $('receipt-body').replaceChildren();
  for (const m of MODULES) m.forget();
  show('sign-in');
  $('token').focus();
}

function route() {
  if (!me) { show('sign-in'); return; }
  const view = currentView();
  show(view);
  refresh();
}

// One refresh at a time, and one timer: a call while a refresh runs (a filter change, an action's
// answer, a tab) makes that refresh run once more with what is asked now, and only the refresh
// that ends arms the next timer (docs/design/0449-operator-console.md §5).
function refresh() {
  clearTimeout(timer);
  timer = null;
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      do {
        refreshAgain = false;
        await refreshOnce();
      } while (refreshAgain && me);
    } finally {
      refreshing = null;
    }
    if (me) timer = setTimeout(refresh, REFRESH_MS);
  })();
  return refreshing;
}

async function refreshOnce() {
  if (!me) return;
  const view = currentView();
  try {
    await VIEWS[view]();
  } catch (e) {
    $(view + '-status').textContent = 'Cannot refresh: ' + e.message;
    if (e instanceof ApiError && e.status === 401) { signOut(); $('sign-in-error').textContent = 'Signed out: ' + e.message; }
  }
}

async function refreshOverview() {
  // one summary per catalog (docs/design/0450-catalog-summary.md)
  const summaries = await Promise.all(me.catalogs.map(c => summary(me, c.name)));
  redrawCards($('overview-body'), summaries.map(s => overviewCard(s)));
  $('overview-status').textContent = 'Updated ' + new Date().toLocaleTimeString() + '; refreshed every ' + REFRESH_MS / 1000 + ' s.';
}

// the same catalogs as drawn: only the figures' text changes, in place, so the elements (and a
// screen reader's or a test's hold on them) stay; anything else redraws the cards
function redrawCards(body, cards) {
  const drawn = body.firstElementChild;
  const same = drawn && drawn.children.length === cards.length && cards.every((c, i) =>
    drawn.children[i].dataset.catalog === c.dataset.catalog
    && drawn.children[i].querySelectorAll('dd').length === c.querySelectorAll('dd').length);
  if (!same) {
    body.replaceChildren(el('div', { class: 'cards' }, ...cards));
    return;
  }
  cards.forEach((card, i) => {
    const was = drawn.children[i].querySelectorAll('dd');
    card.querySelectorAll('dd').forEach((dd, k) => {
      if (was[k].textContent !== dd.textContent) was[k].textContent = dd.textContent;
    });
  });
}

const ACTIONS = [
  { verb: 'retry', label: 'Retry', states: ['FAILED'], says: 'Put the failed job back to PENDING so a worker runs it again.' },
  { verb: 'run-now', label: 'Run now', states: ['PENDING'], says: 'Make the waiting job claimable now.' },
  { verb: 'abandon', label: 'Abandon', states: ['FAILED'], reason: true, says: 'End the failed job ABANDONED: its remaining files are kept and the name is freed.' },
  { verb: 'rescue', label: 'Rescue', states: ['PENDING', 'FAILED'], says: 'Cancel the purge and put the table back at its name.' },
];

// Receipt for any reader of an ended job; the admin's actions on the states the server accepts
function actionsFor(job, catalog) {
  const buttons = [];
  if (ENDED.includes(job.state)) {
    const b = el('button', { type: 'button', 'data-action': 'receipt', 'aria-label': 'Receipt of job ' + job.id }, 'Receipt');
    b.addEventListener('click', () => openReceipt(job, catalog));
    buttons.push(b);
  }
  if (!me.admin) return buttons;
  return buttons.concat(ACTIONS.filter(a => a.states.includes(job.state)).map(a => {
    const b = el('button', { type: 'button', 'data-action': a.verb, 'aria-label': a.label + ' job ' + job.id }, a.label);
    b.addEventListener('click', () => act(a, job, catalog));
    return b;
  }));
}

function jobFilter() {
  return { catalog: $('jobs-catalog').value || (me.catalogs[0] && me.catalogs[0].name),
    state: $('jobs-state').value, namespace: $('jobs-namespace').value };
}

async function refreshJobs() {
  const filter = jobFilter();
  const { catalog, state, namespace } = filter;
  if (!catalog) { $('jobs-status').textContent = 'This token reads no catalog.'; return; }
  let list;
  try {
    list = await jobs(me, catalog, state, namespace);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 400) throw e;
    // a filter the server refuses (a malformed namespace): its words, and no rows of another filter
    if (JSON.stringify(jobFilter()) !== JSON.stringify(filter)) return;
    lastJobs = null;
    $('jobs-table').tBodies[0].replaceChildren();
    $('jobs-status').textContent = 'The server refused this filter (HTTP 400): ' + e.message;
    return;
  }
  // the filter changed while the listing was on its way: the refresh that follows draws the new one
  if (JSON.stringify(jobFilter()) !== JSON.stringify(filter)) return;
  // redraw only what changed, and give the focus back to the same button: a keyboard user
  // tabbing through the rows must not lose their place every refresh
  const drawn = JSON.stringify([catalog, me.admin, list]);
  if (drawn !== lastJobs) {
    lastJobs = drawn;
    const focused = document.activeElement;
    const again = focused && focused.dataset && focused.dataset.action
      ? '[data-job="' + focused.closest('tr').dataset.job + '"] [data-action="' + focused.dataset.action + '"]' : null;
    $('jobs-table').tBodies[0].replaceChildren(...list.map(j => jobRow(j, actionsFor(j, catalog))));
    const target = again && $('jobs-table').querySelector(again);
    if (target) target.focus();
  }
  $('jobs-status').textContent = list.length + ' job(s) in ' + catalog + (namespace ? ', namespace ' + namespace : '')
    + '; updated ' + new Date().toLocaleTimeString() + '.';
}

// The receipt of an ended job (GET …/cleanups/{id}/receipt, docs/design/0445-job-progress-and-receipts.md)
// in a modal dialog; closing it gives the focus back to the job's Receipt button, redrawn or not.
async function openReceipt(job, catalog) {
  const dialog = $('receipt');
  receiptJob = job.id;
  $('receipt-title').textContent = 'Receipt of job ' + job.id;
  $('receipt-body').replaceChildren();
  $('receipt-status').textContent = 'Loading the receipt…';
  if (!dialog.open) dialog.showModal();
  let facts;
  try {
    facts = receiptFacts(await call('GET', catalogPath(me, catalog) + '/cleanups/' + seg(job.id) + '/receipt'));
  } catch (e) {
    if (receiptJob !== job.id) return;
    $('receipt-status').textContent = 'No receipt for job ' + job.id
      + (e instanceof ApiError ? ' (HTTP ' + e.status + ')' : '') + ': ' + e.message;
    return;
  }
  if (receiptJob !== job.id || !dialog.open) return;
  $('receipt-body').replaceChildren(...facts);
  $('receipt-status').textContent = '';
}

function receiptClosed() {
  const id = receiptJob;
  receiptJob = null;
  $('receipt-body').replaceChildren();
  const button = id === null ? null : $('jobs-table').querySelector('tr[data-job="' + id + '"] [data-action="receipt"]');
  if (button) button.focus();
}

function confirmAction(action, job) {
  return new Promise(resolve => {
    const dialog = $('confirm');
    $('confirm-title').textContent = action.label + ' job ' + job.id + '?';
    $('confirm-text').textContent = action.says + ' (' + job.objectType + ' ' + [...job.namespace, job.name].join('.') + ', ' + job.state + ')';
    $('confirm-reason-row').hidden = !action.reason;
    $('confirm-reason').required = !!action.reason;
    $('confirm-reason').value = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok' ? { reason: $('confirm-reason').value } : null), { once: true });
    // Escape leaves returnValue as the last close set it: a confirmed dialog must not confirm the next one
    dialog.returnValue = '';
    dialog.showModal();
  });
}

async function act(action, job, catalog) {
  const answer = await confirmAction(action, job);
  if (!answer) return;
  const path = catalogPath(me, catalog) + '/cleanups/' + seg(job.id) + '/' + action.verb;
  try {
    const body = action.reason ? { reason: answer.reason } : (action.verb === 'rescue' ? {} : undefined);
    const result = await call('POST', path, body);
    $('jobs-answer').textContent = action.label + ' job ' + job.id + ': done; the job is now ' + (result && result.state ? result.state : 'updated') + '.';
  } catch (e) {
    $('jobs-answer').textContent = action.label + ' job ' + job.id + ' refused (HTTP ' + e.status + '): ' + e.message;
  }
  refresh();
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', event => {
    event.preventDefault();
    signIn($('token').value);
  });
  $('sign-out').addEventListener('click', signOut);
  $('confirm-cancel').addEventListener('click', () => { $('confirm-reason').required = false; });
  $('jobs-filter').addEventListener('change', refresh);
  $('jobs-filter').addEventListener('submit', event => { event.preventDefault(); refresh(); });
  $('receipt').addEventListener('close', receiptClosed);
  for (const m of MODULES) m.setup(() => me, refresh);
  window.addEventListener('hashchange', route);
  if (token()) signIn(token()); else show('sign-in');
});
