// Rendering helpers: every server string goes in through textContent, never as markup.
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) node.setAttribute(k, v);
  }
  for (const c of children) {
    node.append(c instanceof Node ? c : document.createTextNode(c === null || c === undefined ? '' : String(c)));
  }
  return node;
}

export function when(ms) {
  return ms === null || ms === undefined ? '—' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function age(ms) {
  if (ms === null || ms === undefined) return '—';
  let s = Math.max(0, Math.round(ms / 1000));
  const d = Math.floor(s / 86400); s -= d * 86400;
  const h = Math.floor(s / 3600); s -= h * 3600;
  const m = Math.floor(s / 60); s -= m * 60;
  return (d ? d + 'd ' : '') + (d || h ? h + 'h ' : '') + (d || h || m ? m + 'm ' : '') + s + 's';
}

export function objectName(job) {
  return [...(job.namespace || []), job.name].join('.');
}

export const STATES = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'ABANDONED', 'CANCELLED'];

/**
 * One catalog's card: the figures an on-call engineer looks at first, from the catalog's summary
 * (docs/design/0450-catalog-summary.md); ages and "in …" are measured on the summary's own clock.
 */
export function overviewCard(s) {
  const now = s.now;
  const counts = s.jobs || {};
  const oldestPending = s.oldestPendingCreatedAt === null || s.oldestPendingCreatedAt === undefined
    ? null : now - s.oldestPendingCreatedAt;
  const nearest = s.nearestDeadline === null || s.nearestDeadline === undefined ? null : s.nearestDeadline;
  const facts = el('dl', { class: 'facts' });
  const fact = (name, value, id) => {
    facts.append(el('dt', {}, name), el('dd', { 'data-fact': id }, value));
  };
  for (const state of STATES) fact('Jobs ' + state.toLowerCase(), counts[state] || 0, 'jobs-' + state.toLowerCase());
  fact('Oldest pending', oldestPending === null ? '—' : age(oldestPending), 'oldest-pending');
  const failed = (s.failed || []).map(j => '#' + j.id + ' ' + objectName(j));
  fact('Failed jobs', failed.length ? failed.join(', ') + ((counts.FAILED || 0) > failed.length ? ', …' : '') : 'none', 'failed');
  fact('Retained tables', s.retainedTables, 'retained');
  fact('Nearest deadline', nearest === null ? '—' : when(nearest) + ' (in ' + age(nearest - now) + ')', 'nearest-deadline');
  fact('Holds in force', s.holds, 'holds');
  fact('Protections', s.protections, 'protections');
  return el('article', { class: 'card', 'data-catalog': s.catalog, 'aria-label': 'Catalog ' + s.catalog },
    el('h3', {}, 'Catalog ', s.catalog), facts);
}

function progress(job) {
  if (job.filesDeleted === null || job.filesDeleted === undefined) return '—';
  const parts = [job.filesDeleted + ' files', (job.bytesLowerBound ? '≥ ' : '') + (job.bytesDeleted || 0) + ' bytes'];
  if (job.phase) parts.push(job.phase);
  return parts.join(', ');
}

/** One job row; {@code actions} its buttons (Receipt for an ended job, and an admin's actions), maybe none. */
export function jobRow(job, actions) {
  const owner = job.owner ? job.owner.host + ':' + job.owner.pid : '—';
  const cell = el('td', {});
  if (actions.length) cell.append(el('div', { class: 'actions' }, ...actions));
  return el('tr', { 'data-job': job.id, 'data-state': job.state },
    el('td', {}, job.id),
    el('td', { class: 'state-' + job.state }, job.state),
    el('td', {}, job.objectType + ' ' + objectName(job)),
    el('td', {}, job.purgePath || '—'),
    el('td', {}, job.attempts),
    el('td', {}, when(job.nextAttemptAt)),
    el('td', {}, owner),
    el('td', {}, progress(job)),
    el('td', { class: 'err' }, job.lastError || ''),
    el('td', {}, job.stale ? 'stale' : 'no'),
    cell);
}

/** The states a job ends in: each has a receipt (docs/design/0445-job-progress-and-receipts.md). */
export const ENDED = ['SUCCEEDED', 'FAILED', 'ABANDONED', 'CANCELLED'];

function count(n, one, many) {
  return n + ' ' + (n === 1 ? one : many);
}

function sample(s) {
  const parts = [count(s.count, 'file', 'files')];
  if (s.sample && s.sample.length) parts.push(el('ul', { class: 'sample' }, ...s.sample.map(p => el('li', {}, p))));
  return parts;
}

/** A receipt as dt/dd pairs for a {@code <dl>}, every string as text; {@code data-fact} names each figure. */
export function receiptFacts(r) {
  const out = [];
  const fact = (name, id, ...value) => {
    out.push(el('dt', {}, name), el('dd', { 'data-fact': id }, ...value));
  };
  fact('Job', 'job', '#' + r.jobId + ' (receipt #' + r.receiptId + ')');
  fact('State', 'state', r.state);
  fact('Object', 'object', r.objectType + ' ' + objectName(r));
  fact('Purge path', 'purge-path', r.purgePath || '—');
  fact('Asked by', 'created-by', r.createdBy || '—');
  fact('Created', 'created-at', when(r.createdAt));
  fact('First claimed', 'first-claimed-at', when(r.firstClaimedAt));
  fact('Ended', 'ended-at', when(r.endedAt));
  fact('Duration', 'duration', age(r.durationMs));
  fact('Attempts', 'attempts', r.attempts);
  fact('Files deleted', 'files-deleted', r.filesDeleted);
  fact('Bytes deleted', 'bytes-deleted', (r.bytesLowerBound ? 'at least ' : '') + r.bytesDeleted);
  for (const [kind, c] of Object.entries(r.deleted || {})) {
    fact('Deleted ' + kind.toLowerCase().replace(/_/g, ' '), 'deleted-' + kind,
      count(c.files, 'file', 'files') + ', ' + c.bytes + ' bytes' + (c.unknownSizes ? ' (' + c.unknownSizes + ' of unknown size)' : ''));
  }
  fact('Files kept', 'kept-files', r.keptFiles);
  const kept = Object.entries(r.kept || {});
  if (!kept.length) fact('Kept', 'kept', 'none');
  for (const [reason, s] of kept) fact('Kept: ' + reason.toLowerCase().replace(/_/g, ' '), 'kept-' + reason, ...sample(s));
  fact('Left over', 'leftovers', ...sample(r.leftovers || { count: 0 }));
  fact('Last error', 'last-error', r.lastError || 'none');
  if (r.endedBy) fact('Ended by', 'ended-by', r.endedBy);
  if (r.endReason) fact('Reason', 'end-reason', r.endReason);
  return out;
}
