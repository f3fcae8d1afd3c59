// Nightshift's web view: reads /status (same origin) every 2 s and draws it. Plain ES2020, no
// framework, nothing fetched from anywhere but the agent. Each section is rendered as one HTML
// string and put into the page only when it changed, so a poll that changes nothing touches no DOM
// and one that changes a pool replaces only that pool's card (focus and scroll stay where they are).
'use strict';

(() => {
  const POLL_MS = 2000;
  const DAY_MS = 86400000;
  /** Node states, in the order the agent gives them precedence; the legend and the grid use these names. */
  const STATES = ['failed', 'unhealthy', 'draining', 'updating', 'cordoned', 'outdated', 'current'];
  const ACTIONS = { ROLL: 'roll', IN_PLACE: 'in place', KUBELET_RESTART: 'kubelet restart', PROPAGATE: 'labels' };
  const PHASE_TONE = {
    CURRENT: 'ok', UPDATING: 'info', RESTARTING_KUBELETS: 'info', WAITING_FOR_TURN: '', WAITING_FOR_WINDOW: 'warn',
    WAITING_FOR_VALIDATION: '', PAUSED: 'warn', REPORT_ONLY: 'warn', NODE_UPDATES_OFF: 'warn', AWAITING_SELECTION: 'warn', FAILED: 'bad', HALTED: 'bad'
  };

  const $ = (id) => document.getElementById(id);
  const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
  const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
  const short = (commit) => (commit ? String(commit).slice(0, 12) : '');
  const plural = (n, one, many) => `${Number(n).toLocaleString()} ${n === 1 ? one : (many || one + "s")}`;
  const dateTime = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  const when = (iso) => (iso ? `<time datetime="${esc(iso)}">${esc(dateTime.format(new Date(iso)))}</time>` : '');
  const idOf = (pool) => 'pool-' + String(pool).replace(/[^A-Za-z0-9_-]/g, '_');

  /** What is in the page now, by section (or pool card): the HTML last put there. */
  const shown = new Map();
  let lastText = null;
  let renders = 0;

  /**
   * Runs {@code replace}, then gives the focus back to the same element (same id, node or link) if the
   * replaced HTML held it: a person reading the grid with the keyboard is not thrown out by an update.
   */
  function keepingFocus(container, replace) {
    const active = document.activeElement;
    if (!active || active === document.body || !container.contains(active)) {
      replace();
      return;
    }
    const selector = active.dataset && active.dataset.node ? `[data-node="${CSS.escape(active.dataset.node)}"]`
      : active.id ? `#${CSS.escape(active.id)}` : active.getAttribute('href') ? `[href="${CSS.escape(active.getAttribute('href'))}"]` : null;
    replace();
    const again = selector && document.querySelector(selector);
    if (again) again.focus({ preventScroll: true });
  }

  /** Puts {@code html} into the element {@code id} unless it is there already. */
  function put(id, html) {
    if (shown.get(id) === html) return;
    shown.set(id, html);
    const element = $(id);
    keepingFocus(element, () => { element.innerHTML = html; });
  }

  // ---- Fleet --------------------------------------------------------------------------------

  function action(p) {
    if (p.pendingAction && p.pendingAction !== 'NONE') return ACTIONS[p.pendingAction] || p.pendingAction.toLowerCase();
    const target = p.target && p.target.action;
    return target === 'PROPAGATE' && p.phase !== 'CURRENT' ? ACTIONS.PROPAGATE : '—';
  }

  function percent(p) {
    // Floored, so that 100 % means every node is current.
    return Math.floor((typeof p.progress === 'number' ? p.progress : 1) * 100);
  }

  function phase(p) {
    return `<span class="badge ${PHASE_TONE[p.phase] || ''}">${esc(p.phase.toLowerCase().replace(/_/g, ' '))}</span>`;
  }

  /**
   * Why a pool with work takes none now, from /status waitingFor ({reason, pool, detail}): its turn in the fleet (role
   * order, rollout.after, concurrency) or room (the cluster's budget, its zone's repairs). Plain words, then the agent's
   * own sentence; '' when it waits for nothing.
   */
  const WAITS = {
    'role-order': (w) => `Waits for its turn: pool ${w.pool} of an earlier role goes first`,
    after: (w) => `Waits for its turn: it starts after pool ${w.pool}`,
    concurrency: () => 'Waits for its turn: as many pools of its role as allowed are rolling',
    'cluster-budget': () => 'Waits for room: the cluster has as many unavailable nodes as it allows',
    'zone-repairs': () => 'Waits for room: its zone has as many repairs under way as it allows',
  };

  function waitingFor(p) {
    const w = p.waitingFor;
    if (!w) return '';
    const lead = WAITS[w.reason] ? WAITS[w.reason](w) : `Waits: ${w.reason}`;
    return `<span class="waiting">${esc(lead)}${w.detail ? ` <span class="detail">(${esc(w.detail)})</span>` : ''}</span>`;
  }

  /**
   * When a pool that waits for others starts in the fleet's schedule, from /status etaStart ({at, reason, after,
   * poolsDone}), as the CLI's starts: line says it; nothing for a pool that starts at once (reason null).
   */
  const STARTS = {
    concurrency: (s) => `${s.after} frees a turn`,
    'role-order': (s) => `${s.after}: pools of an earlier role go first`,
    after: (s) => `${s.after}: named in rollout.after`,
  };

  function starts(p) {
    const s = p.etaStart;
    if (!s || !s.reason) return '';
    const why = STARTS[s.reason] ? STARTS[s.reason](s) : s.after;
    return `<span class="starts">starts ${when(s.at)} when ${esc(s.poolsDone)} ${s.poolsDone === 1 ? 'pool is' : 'pools are'} done`
      + `${why ? ` (${esc(why)})` : ''}</span>`;
  }

  function eta(p) {
    if (p.eta && p.eta.completesAt) return `done by ${when(p.eta.completesAt)}${starts(p)}`;
    if (p.eta) return `not within the calendar's horizon${starts(p)}`;
    if (p.etaLeftOut) return esc(p.etaLeftOut);
    return p.outdated > 0 ? 'not estimated yet' : '—';
  }

  /** Waves and soaks are not in /status yet: shown only for pools whose /status has them. */
  function stage(p) {
    const parts = [];
    if (p.wave !== undefined && p.wave !== null) parts.push(`wave ${esc(typeof p.wave === 'object' ? p.wave.name ?? JSON.stringify(p.wave) : p.wave)}`);
    if (p.soak !== undefined && p.soak !== null) parts.push(`soak ${esc(typeof p.soak === 'object' ? p.soak.until ?? JSON.stringify(p.soak) : p.soak)}`);
    return parts.join(', ');
  }

  function fleet(status) {
    const pools = status.pools || [];
    if (pools.length === 0) return '<p>No pool is reported yet: the agent has not reconciled a good spec.</p>';
    const staged = pools.some((p) => 'wave' in p || 'soak' in p);
    const rows = pools.map((p) => {
      const pct = percent(p);
      return `<tr data-pool="${esc(p.pool)}">
<th scope="row"><a href="#${idOf(p.pool)}">${esc(p.pool)}</a></th>
<td data-label="Phase"${p.waitingFor ? ' class="has-wait"' : ''}>${phase(p)}${waitingFor(p)}</td><td data-label="Action">${esc(action(p))}</td>
<td data-label="Progress"><progress max="100" value="${pct}" aria-label="${esc(p.pool)}: ${pct} % current"></progress> <span class="pct">${pct} %</span></td>
<td class="num" data-label="Current">${p.current}</td><td class="num" data-label="Outdated">${p.outdated}</td>
<td class="num" data-label="Updating">${p.updating}</td><td class="num" data-label="Failed">${p.failed}</td>
<td class="eta" data-label="ETA">${eta(p)}</td>${staged ? `<td data-label="Wave / soak">${stage(p)}</td>` : ''}</tr>`;
    }).join('');
    return `<div class="scroll" role="region" aria-label="Fleet table" tabindex="0"><table class="fleet">
<caption class="visually-hidden">Every pool: phase, action, progress, node counts and ETA</caption>
<thead><tr><th scope="col">Pool</th><th scope="col">Phase</th><th scope="col">Action</th><th scope="col">Progress</th>
<th scope="col" class="num">Current</th><th scope="col" class="num">Outdated</th><th scope="col" class="num">Updating</th>
<th scope="col" class="num">Failed</th><th scope="col">ETA</th>${staged ? '<th scope="col">Wave / soak</th>' : ''}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
  }

  // ---- Pool detail --------------------------------------------------------------------------

  function grid(p) {
    const nodes = p.nodeStates || [];
    if (nodes.length === 0) return '<p>No machine is known in this pool.</p>';
    const counts = {};
    const cells = new Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      counts[n.state] = (counts[n.state] || 0) + 1;
      const label = `${esc(n.node)}: ${esc(n.state)}`;
      cells[i] = `<li class="s-${esc(n.state)}" tabindex="${i === 0 ? 0 : -1}" data-node="${esc(n.node)}" title="${label}" aria-label="${label}"></li>`;
    }
    const legend = STATES.filter((s) => counts[s]).map((s) => `<li><i class="s-${s}"></i>${s} ${counts[s]}</li>`).join('');
    return `<ul class="nodes" aria-label="${plural(nodes.length, 'node')} of ${esc(p.pool)}; arrow keys move between them">${cells.join('')}</ul>
<output class="node-name" aria-live="off"></output><ul class="legend" aria-label="Node states of ${esc(p.pool)}">${legend}</ul>`;
  }

  /** A titled list, nothing when empty; {@code level}: the heading's level under its section or card. */
  function list(title, items, level = 4) {
    return items.length ? `<h${level}>${title}</h${level}><ul>${items.join('')}</ul>` : '';
  }

  function why(p) {
    const t = p.target;
    if (!t) return '';
    const reasons = (t.reasons || []).map((r) => `<li><code>${esc(r.path)}</code>: <code>${esc(r.old)}</code> → <code>${esc(r.new)}</code>
<span class="effect">(${esc(String(r.effect).replace(/_/g, ' '))})</span></li>`).join('');
    return `<h4>Why</h4><p>Commit <code>${esc(short(t.revision))}</code>: ${esc((ACTIONS[t.action] || t.action || '').toLowerCase())}</p>
${reasons ? `<ul class="why">${reasons}</ul>` : ''}`;
  }

  /** The last revisions, only when /status has a history (it does not yet). */
  function history(p) {
    if (!Array.isArray(p.history) || p.history.length === 0) return '';
    return list('History', p.history.slice(0, 10).map((h) => `<li><code>${esc(short(h.revision ?? h.commit ?? ''))}</code>
${esc(h.action ?? '')} ${h.at ? when(h.at) : ''}</li>`));
  }

  function card(p) {
    const issues = [];
    (p.blockedDrains || []).forEach((b) => issues.push(`<li class="blocked">Drain of <code>${esc(b.node)}</code> blocked: pod
<code>${esc(b.pod)}</code>, PodDisruptionBudget <code>${esc(b.podDisruptionBudget)}</code> (attempt ${esc(b.attempts)})</li>`));
    (p.failedNodes || []).forEach((h) => issues.push(`<li><code>${esc(h.node)}</code> failed: ${esc(h.condition)} since ${when(h.since)}</li>`));
    (p.unhealthyNodes || []).forEach((h) => issues.push(`<li><code>${esc(h.node)}</code> unhealthy: ${esc(h.condition)} since ${when(h.since)}</li>`));
    (p.failedUpdates || []).forEach((f) => issues.push(`<li>Update of <code>${esc(f.node)}</code> failed${f.reason ? ': ' + esc(f.reason) : ''}</li>`));
    (p.refusedSteps || []).forEach((r) => issues.push(`<li>${esc(r.step)} of <code>${esc(r.node)}</code> held (${esc(r.reason)}): ${esc(r.detail)}</li>`));
    if (p.lastError) issues.push(`<li>${esc(p.lastError)}</li>`);
    if (p.progressReason) issues.push(`<li>${esc(p.progressReason)}</li>`);
    const h = p.healthFailure;
    if (h) issues.push(`<li>Halted in wave ${esc(h.wave)}: <code>${esc(h.check)}</code> ${esc(h.value)}, must be ${esc(h.threshold)}; <code>nightshift resume --pool ${esc(p.pool)}</code> lifts it</li>`);
    if ((p.awaitingSelection || []).length) issues.push(`<li>Awaiting selection: ${p.awaitingSelection.map((n) => `<code>${esc(n)}</code>`).join(', ')}</li>`);
    const st = stage(p);
    return `<article class="pool" id="${idOf(p.pool)}" aria-labelledby="${idOf(p.pool)}-h">
<header><h3 id="${idOf(p.pool)}-h">${esc(p.pool)}</h3>${phase(p)}<span>${esc(action(p))}</span>
<span>${percent(p)} % · ${plural(p.nodes, 'node')}</span>${st ? `<span>${st}</span>` : ''}</header>
${p.waitingFor ? `<p>${waitingFor(p)}</p>` : ''}${grid(p)}${list('Needs attention', issues)}${why(p)}${history(p)}</article>`;
  }

  /** One card per pool; when the pools are the same as shown, only the cards that changed are replaced. */
  function renderPools(status) {
    const pools = status.pools || [];
    const body = $('pools-body');
    const keys = pools.map((p) => idOf(p.pool));
    const cards = pools.map(card);
    const list = body.firstElementChild;
    const same = pools.length > 0 && list && list.classList.contains('pools') && list.children.length === keys.length
      && keys.every((k, i) => list.children[i].id === k);
    if (!same) {
      keepingFocus(body, () => {
        body.innerHTML = pools.length ? `<div class="pools">${cards.join('')}</div>` : '<p>No pool yet.</p>';
      });
      keys.forEach((k, i) => shown.set(k, cards[i]));
      return;
    }
    keys.forEach((k, i) => {
      if (shown.get(k) === cards[i]) return;
      shown.set(k, cards[i]);
      const template = document.createElement('template');
      template.innerHTML = cards[i];
      keepingFocus(list.children[i], () => list.replaceChild(template.content.firstElementChild, list.children[i]));
    });
  }

  // ---- Time ---------------------------------------------------------------------------------

  function windowNow(w) {
    if (!w) return 'No reconcile has reported the calendar yet.';
    const parts = [];
    if (w.exclusionActive) parts.push(`An exclusion is in force${w.exclusionReason ? ` (${esc(w.exclusionReason)})` : ''}: nothing disruptive starts.`);
    if (w.alwaysOpen) parts.push('No maintenance window is configured: maintenance may happen at any time.');
    else if (w.open) parts.push(`A window is open now; it closes ${w.currentCloses ? when(w.currentCloses) : 'beyond the calendar\'s horizon'}.`);
    else if (w.nextOpens) parts.push(`Closed now; the next window opens ${when(w.nextOpens)}${w.nextCloses ? ` and closes ${when(w.nextCloses)}` : ''}.`);
    else parts.push('Closed, and no window opens within the calendar\'s horizon.');
    if (!w.specRolloutAllowed) parts.push('Spec changes wait for a window.');
    return parts.join(' ');
  }

  function timeline(status) {
    const cal = status.calendar;
    if (!cal) return '';
    const from = Date.parse(cal.from);
    const until = Date.parse(cal.until);
    const span = until - from;
    const x = (t) => Math.max(0, Math.min(100, ((t - from) / span) * 100)).toFixed(3) + '%';
    const width = (a, b) => Math.max(0.15, ((Math.min(b, until) - Math.max(a, from)) / span) * 100).toFixed(3) + '%';
    const svg = [];
    const firstDay = new Date(from);
    firstDay.setHours(24, 0, 0, 0);
    for (let d = firstDay.getTime(), i = 0; d < until; d += DAY_MS, i++) {
      const day = new Date(d);
      svg.push(`<line class="day" x1="${x(d)}" x2="${x(d)}" y1="0" y2="100%"/>`);
      // Every other day's label is left out on a narrow screen (app.css), where they would overlap.
      svg.push(`<text class="label${i % 2 ? ' odd' : ''}" x="${x(d)}" dx="3" y="14">${esc(day.toLocaleDateString(undefined, { weekday: 'short', day: 'numeric' }))}</text>`);
    }
    (cal.windows || []).forEach((w) => {
      const open = Date.parse(w.open);
      const close = w.close ? Date.parse(w.close) : until;
      svg.push(`<rect class="win" x="${x(open)}" width="${width(open, close)}" y="22" height="34"><title>window ${esc(w.source)}</title></rect>`);
    });
    (cal.exclusions || []).forEach((e) => {
      const start = Date.parse(e.start);
      const end = Date.parse(e.end);
      svg.push(`<rect class="exc" x="${x(start)}" width="${width(start, end)}" y="18" height="42"><title>exclusion ${esc(e.reason || '')}</title></rect>`);
    });
    const etas = (status.pools || []).filter((p) => p.eta && p.eta.completesAt);
    etas.forEach((p) => {
      const t = Date.parse(p.eta.completesAt);
      if (t <= until) svg.push(`<line class="eta" x1="${x(t)}" x2="${x(t)}" y1="16" y2="80"><title>${esc(p.pool)} done</title></line>`);
    });
    const now = Date.parse(status.lastReconcile || cal.from);
    svg.push(`<line class="now" x1="${x(now)}" x2="${x(now)}" y1="16" y2="90"/>`);
    svg.push(`<text class="label" x="${x(now)}" dx="3" y="90">now</text>`);
    const windows = (cal.windows || []).slice(0, 12).map((w) => `<li>${w.openedBeforeLookBack ? `open since before ${when(w.open)}` : when(w.open)}
→ ${w.close ? when(w.close) : 'beyond the horizon'}
<span class="mono">${esc(w.source)}</span></li>`);
    const exclusions = (cal.exclusions || []).map((e) => `<li>${when(e.start)} → ${when(e.end)}${e.reason ? ': ' + esc(e.reason) : ''}</li>`);
    const etaItems = etas.map((p) => `<li>${esc(p.pool)}: done by ${when(p.eta.completesAt)}</li>`);
    return `<svg class="timeline" role="img" aria-labelledby="timeline-title" xmlns="http://www.w3.org/2000/svg">
<title id="timeline-title">Maintenance windows, exclusions and ETAs over the next 14 days</title>${svg.join('')}</svg>
<div class="key" aria-hidden="true"><span><i class="k-win"></i>window</span><span><i class="k-exc"></i>exclusion</span>
<span><i class="k-now"></i>now</span><span><i class="k-eta"></i>ETA</span></div>
<div class="cols"><div>${list(`Windows${cal.windows && cal.windows.length > 12 ? ` (first 12 of ${cal.windows.length}${cal.truncated ? '+' : ''})` : ''}`, windows, 3)
      || (status.window && status.window.alwaysOpen ? '' : '<p>No window in the next 14 days.</p>')}</div>
<div>${list('Exclusions', exclusions, 3) || '<h3>Exclusions</h3><p>None in the next 14 days.</p>'}</div>
<div>${list('ETA', etaItems, 3) || '<h3>ETA</h3><p>No rollout to estimate.</p>'}</div></div>`;
  }

  function time(status) {
    return `<p id="window-now">${windowNow(status.window)}</p>${timeline(status)}`;
  }

  // ---- Spec ---------------------------------------------------------------------------------

  function spec(status) {
    const errors = (status.specErrors || []).map((e) => `<tr><td class="mono" data-label="Where">${esc(e.file)}:${esc(e.line)}:${esc(e.column)}</td>
<td data-label="Field"><code>${esc(e.path)}</code></td><td data-label="Error">${esc(e.message)}</td></tr>`).join('');
    const refused = (status.rejectedChanges || []).map((r) => `<li>${esc(r)}</li>`);
    const v = status.commitVerification;
    if (v && !v.verified) refused.unshift(`<li>Commit <code>${esc(short(v.commit))}</code> refused by git.verify: ${esc(v.reason)}</li>`);
    const notices = (status.notices || []).map((n) => `<li>${esc(n)}</li>`);
    const valid = status.specValid !== false;
    return `<dl class="facts">
<dt>Revision in force</dt><dd><code>${esc(short(status.revision)) || '—'}</code></dd>
<dt>Latest commit</dt><dd><code>${esc(short(status.latestCommit)) || '—'}</code>
${valid ? '<span class="badge ok">valid</span>' : '<span class="badge bad">invalid: not applied</span>'}</dd>
${v ? `<dt>Signature</dt><dd>${v.verified ? `verified (${esc(v.signer)})` : 'not verified'}</dd>` : ''}
<dt>Last reconcile</dt><dd>${status.lastReconcile ? when(status.lastReconcile) : '—'}</dd>
${status.lastError ? `<dt>Last error</dt><dd>${esc(status.lastError)}</dd>` : ''}</dl>
${errors ? `<h3>Spec errors in ${esc(short(status.latestCommit))}</h3><div class="scroll"><table class="spec-errors">
<thead><tr><th scope="col">Where</th><th scope="col">Field</th><th scope="col">Error</th></tr></thead><tbody>${errors}</tbody></table></div>` : ''}
${list('Refused commits', refused, 3)}${list('Notices', notices, 3)}`;
  }

  // ---- Page ---------------------------------------------------------------------------------

  function summary(status) {
    const pools = status.pools || [];
    let nodes = 0;
    let current = 0;
    pools.forEach((p) => { nodes += p.nodes || 0; current += p.current || 0; });
    const leader = status.leaderElection && status.leaderElection.enabled
      ? ` · ${status.leaderElection.leading ? 'leading' : `standing by (${esc(status.leaderElection.leader || 'no leader')} leads)`}` : '';
    return `${plural(pools.length, 'pool')} · ${plural(nodes, 'node')}, ${current} current · revision <code>${esc(short(status.revision)) || '—'}</code>${leader}`;
  }

  function alerts(status) {
    const out = [];
    if (status.specValid === false) {
      const first = (status.specErrors || [])[0];
      out.push(`<p class="alert">Commit <code>${esc(short(status.latestCommit))}</code> is invalid and not applied${first
        ? `: <span class="mono">${esc(first.file)}:${esc(first.line)}:${esc(first.column)}</span> <code>${esc(first.path)}</code>: ${esc(first.message)}` : ''}. <a href="#spec">Spec</a></p>`);
    }
    if (status.lastError && status.specValid !== false) out.push(`<p class="alert warn">${esc(status.lastError)}</p>`);
    return out.join('');
  }

  function render(text) {
    const t0 = performance.now();
    const status = JSON.parse(text);
    put('summary', summary(status));
    put('alerts', alerts(status));
    put('fleet-body', fleet(status));
    put('time-body', time(status));
    put('spec-body', spec(status));
    renderPools(status);
    // Layout is part of the cost a person waits for: force it before measuring.
    void document.body.offsetHeight;
    window.nightshiftRenderMs = performance.now() - t0;
    window.nightshiftRenders = ++renders;
  }

  async function poll() {
    try {
      const response = await fetch('/status', { cache: 'no-store', headers: { Accept: 'application/json' } });
      if (!response.ok) throw new Error(`/status answered ${response.status}`);
      const text = await response.text();
      if (text !== lastText) {
        lastText = text;
        render(text);
      }
      $('updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      $('updated').textContent = `Cannot read /status (${e.message}); trying again`;
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }

  // ---- Keyboard and hover on the node grids: one tab stop per grid, arrows move within it ----

  function showNode(cell) {
    const out = cell.parentElement.nextElementSibling;
    if (out && out.classList.contains('node-name')) out.textContent = cell.getAttribute('aria-label');
  }

  document.addEventListener('focusin', (e) => {
    const cell = e.target.closest && e.target.closest('.nodes li');
    if (!cell) return;
    cell.parentElement.querySelectorAll('li[tabindex="0"]').forEach((c) => { if (c !== cell) c.tabIndex = -1; });
    cell.tabIndex = 0;
    showNode(cell);
  });
  document.addEventListener('mouseover', (e) => {
    const cell = e.target.closest && e.target.closest('.nodes li');
    if (cell) showNode(cell);
  });
  document.addEventListener('keydown', (e) => {
    const cell = e.target.closest && e.target.closest('.nodes li');
    if (!cell) return;
    const cells = cell.parentElement.children;
    const i = Array.prototype.indexOf.call(cells, cell);
    const perRow = Math.max(1, Math.round(cell.parentElement.clientWidth / (cell.offsetWidth + 3)));
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, ArrowDown: i + perRow, ArrowUp: i - perRow, Home: 0, End: cells.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    cells[Math.max(0, Math.min(cells.length - 1, next))].focus();
  });

  poll();
})();
