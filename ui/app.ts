/**
 * The inspector's page: plain DOM, no framework. Talks only to /api/ on its own origin; the token
 * travels in the HttpOnly cookie the page response set. Memory text is untrusted: it is shown with
 * textContent, and the rendered body is markdown whose raw HTML is escaped, under the page's strict
 * CSP (no inline script).
 */
import { Marked } from 'marked';

// biome-ignore lint/suspicious/noExplicitAny: JSON from this server's own API (shapes in the README)
type Json = Record<string, any>;

const app = document.getElementById('app')!;

/**
 * Markdown for memory bodies with their raw HTML shown as text, never parsed: the CSP stops
 * scripts, but not a `<meta http-equiv="refresh">` that sends the page elsewhere, nor a `<form>`
 * that posts to another site.
 */
const markdown = new Marked({
  renderer: {
    html: ({ text }) =>
      text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;'),
  },
});

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

async function api(path: string, init?: RequestInit): Promise<Json> {
  const res = await fetch(path, { credentials: 'same-origin', ...init });
  const body = (await res.json()) as Json;
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}

const views: Record<string, () => Promise<HTMLElement>> = {
  memories: memoriesView,
  index: indexView,
  playground: playgroundView,
  doctor: doctorView,
  charts: chartsView,
  sessions: sessionsView,
};

const nav = el('nav');
const main = el('main');
app.replaceChildren(el('header', {}, el('h1', {}, 'engram inspector'), nav), main);
for (const name of Object.keys(views)) {
  const link = el('a', { href: `#${name}`, 'data-view': name }, name);
  nav.append(link);
}

async function show(): Promise<void> {
  const name = location.hash.slice(1) || 'memories';
  const view = views[name] ?? memoriesView;
  for (const a of nav.querySelectorAll('a'))
    a.classList.toggle('active', a.getAttribute('data-view') === name);
  main.replaceChildren(el('p', {}, 'Loading…'));
  try {
    main.replaceChildren(await view());
  } catch (error) {
    main.replaceChildren(el('p', { class: 'error' }, String((error as Error).message)));
  }
}
window.addEventListener('hashchange', () => void show());
void show();

function gauge(label: string, value: number, max: number): HTMLElement {
  const pct = Math.min(100, Math.round((value / max) * 100));
  const bar = el('div', { class: `bar${value > max ? ' over' : ''}` });
  bar.style.width = `${pct}%`;
  return el(
    'div',
    { class: 'gauge' },
    el('span', {}, `${label}: ${value} / ${max}`),
    el('div', { class: 'track' }, bar),
  );
}

async function memoriesView(): Promise<HTMLElement> {
  const { memories } = await api('/api/memories');
  const search = el('input', { type: 'search', placeholder: 'search', id: 'search' });
  const filter = el('select', { id: 'status-filter' });
  for (const v of ['all', 'active', 'revoked']) filter.append(el('option', { value: v }, v));
  const table = el('table', { id: 'memory-table' });
  const detail = el('section', { id: 'memory-detail' });
  const render = () => {
    const q = search.value.toLowerCase();
    const rows = (memories as Json[]).filter(
      (m) =>
        (filter.value === 'all' || m.status === filter.value) &&
        `${m.file} ${m.name ?? ''} ${m.description ?? ''}`.toLowerCase().includes(q),
    );
    table.replaceChildren(
      el(
        'tr',
        {},
        ...['file', 'type', 'layer', 'age', 'status', 'claims', 'size'].map((h) => el('th', {}, h)),
      ),
      ...rows.map((m) => {
        const open = el('a', { href: '#memories', class: 'open' }, m.file);
        open.addEventListener('click', (e) => {
          e.preventDefault();
          void openMemory(m, detail);
        });
        const claims = m.claims
          ? m.claims.failed > 0
            ? `${m.claims.failed}/${m.claims.total} fail`
            : `${m.claims.total} ok`
          : 'unchecked';
        return el(
          'tr',
          { 'data-file': m.file, class: m.status },
          el('td', {}, open),
          el('td', {}, m.type),
          el('td', {}, m.layer),
          el('td', {}, `${m.ageDays}d`),
          el('td', {}, m.status),
          el('td', {}, claims),
          el(
            'td',
            { class: m.overCap ? 'over' : '' },
            `${m.bytes} B / ${m.lines} lines${m.overCap ? ' (over cap)' : ''}`,
          ),
        );
      }),
    );
  };
  search.addEventListener('input', render);
  filter.addEventListener('change', render);
  render();
  return el(
    'section',
    {},
    el('h2', {}, `Memories (${memories.length})`),
    el('div', { class: 'controls' }, search, filter),
    table,
    detail,
  );
}

async function openMemory(m: Json, into: HTMLElement): Promise<void> {
  const d = await api(`/api/memories/${encodeURIComponent(m.file)}?layer=${m.layer}`);
  const rendered = el('div', { class: 'rendered' });
  rendered.innerHTML = await markdown.parse(d.body, { async: true });
  const reason = el('input', { type: 'text', id: 'revoke-reason', placeholder: 'why it is wrong' });
  const revoke = el('button', { id: 'revoke' }, 'Revoke');
  const msg = el('p', { id: 'revoke-result' });
  revoke.addEventListener('click', async () => {
    try {
      await api(`/api/memories/${encodeURIComponent(d.file)}/revoke?layer=${d.layer}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reason: reason.value }),
      });
      msg.textContent = `Revoked ${d.file}: it is never recalled again and left the index.`;
    } catch (error) {
      msg.textContent = (error as Error).message;
    }
  });
  into.replaceChildren(
    el('h3', {}, `${d.file} (${d.status})`),
    rendered,
    el('h4', {}, 'Frontmatter'),
    el('pre', {}, d.frontmatter),
    el('h4', {}, `Recall history (${d.recallHistory.length})`),
    el(
      'ul',
      {},
      ...(d.recallHistory as Json[]).map((h) => el('li', {}, `${h.at} (${h.selector})`)),
    ),
    ...(d.status === 'active' ? [el('div', { class: 'controls' }, reason, revoke)] : []),
    msg,
  );
}

async function indexView(): Promise<HTMLElement> {
  const d = await api('/api/index');
  const fix = el('button', { id: 'fix-index' }, 'Fix index (backup first)');
  const msg = el('p');
  fix.addEventListener('click', async () => {
    const r = await api('/api/index/fix', { method: 'POST' });
    msg.textContent = r.skipped
      ? r.skipped
      : `added ${r.addedIndexLines.length}, dropped ${r.droppedIndexLines.length}`;
  });
  return el(
    'section',
    { id: 'index-view' },
    el('h2', {}, 'Index health (MEMORY.md)'),
    gauge('lines', d.lines, d.maxLines),
    gauge('bytes', d.bytes, d.maxBytes),
    el('p', {}, `orphans: ${d.orphans.join(', ') || 'none'}`),
    el(
      'p',
      {},
      `dangling: ${d.dangling.map((x: Json) => x.target ?? JSON.stringify(x)).join(', ') || 'none'}`,
    ),
    el('div', { class: 'controls' }, fix),
    msg,
    el('pre', { id: 'index-text' }, d.text),
  );
}

async function playgroundView(): Promise<HTMLElement> {
  const prompt = el('input', { type: 'text', id: 'prompt', placeholder: 'a prompt' });
  const selector = el('select', { id: 'selector' });
  for (const v of ['offline', 'model']) selector.append(el('option', { value: v }, v));
  const run = el('button', { id: 'run-recall' }, 'Recall');
  const out = el('div', { id: 'recall-result' });
  run.addEventListener('click', async () => {
    try {
      const r = await api(
        `/api/recall?q=${encodeURIComponent(prompt.value)}&selector=${selector.value}`,
      );
      const chosen = new Set((r.selected as Json[]).map((s) => s.file));
      out.replaceChildren(
        el('h3', {}, `Selected (${r.selected.length}) by ${r.selector}`),
        el(
          'ul',
          { id: 'selected' },
          ...(r.selected as Json[]).map((s) => el('li', {}, `${s.file} (${s.sectionBytes} B)`)),
        ),
        el('h3', {}, 'Offline ranker: scores and overlapping words'),
        el(
          'table',
          {},
          el('tr', {}, ...['file', 'score', 'relevance', 'words'].map((h) => el('th', {}, h))),
          ...(r.ranked as Json[]).map((k) =>
            el(
              'tr',
              { class: chosen.has(k.file) ? 'chosen' : '' },
              el('td', {}, k.file),
              el('td', {}, k.score.toFixed(3)),
              el('td', {}, k.relevance.toFixed(3)),
              el('td', {}, k.words.join(', ')),
            ),
          ),
        ),
        el('h3', {}, `Injected bytes (${r.injectedBytes})`),
        el('pre', { id: 'injected' }, r.text || '(nothing would be injected)'),
        ...(r.notes as string[]).map((n) => el('p', { class: 'note' }, n)),
      );
    } catch (error) {
      out.replaceChildren(el('p', { class: 'error' }, (error as Error).message));
    }
  });
  return el(
    'section',
    {},
    el('h2', {}, 'Recall playground'),
    el('div', { class: 'controls' }, prompt, selector, run),
    out,
  );
}

async function doctorView(): Promise<HTMLElement> {
  const d = await api('/api/doctor');
  return el(
    'section',
    { id: 'doctor-view' },
    el('h2', {}, `Doctor: ${d.ok ? 'OK' : 'problems'}`),
    el(
      'ul',
      {},
      ...(d.findings as Json[]).map((f) =>
        el('li', { class: f.severity }, `[${f.severity}] ${f.message ?? f.kind}`),
      ),
    ),
  );
}

function barChart(title: string, data: [string, number][]): HTMLElement {
  const ns = 'http://www.w3.org/2000/svg';
  const w = 360;
  const h = 140;
  const max = Math.max(1, ...data.map(([, v]) => v));
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h + 20}`);
  svg.setAttribute('width', String(w));
  const bw = data.length > 0 ? w / data.length : w;
  data.forEach(([label, v], i) => {
    const rect = document.createElementNS(ns, 'rect');
    const bh = (v / max) * h;
    rect.setAttribute('x', String(i * bw + 2));
    rect.setAttribute('y', String(h - bh));
    rect.setAttribute('width', String(Math.max(1, bw - 4)));
    rect.setAttribute('height', String(bh));
    const text = document.createElementNS(ns, 'text');
    text.setAttribute('x', String(i * bw + bw / 2));
    text.setAttribute('y', String(h + 14));
    text.setAttribute('text-anchor', 'middle');
    text.textContent = label;
    svg.append(rect, text);
  });
  return el('figure', { class: 'chart' }, el('figcaption', {}, title), svg);
}

async function chartsView(): Promise<HTMLElement> {
  const d = await api('/api/stats');
  const c = d.charts;
  const hist = Object.entries(c.selectionHistogram as Record<string, number>).sort(
    (a, b) => Number(a[0]) - Number(b[0]),
  );
  const trend = (c.staleTrend as Json[])
    .slice(-30)
    .map((t, i) => [String(i + 1), Math.round(t.ratio * 100)]);
  return el(
    'section',
    { id: 'charts-view' },
    el('h2', {}, `Recall metrics (${c.recalls} recalls)`),
    barChart('memories selected per recall', hist),
    barChart('stale-hit ratio % (last 30 recalls)', trend as [string, number][]),
    barChart('session budget exhausted', [
      ['exhausted', c.budgetExhausted],
      ['within', c.recalls - c.budgetExhausted],
    ]),
    el('h3', {}, `Never recalled (${c.neverRecalled.length})`),
    el('ul', {}, ...(c.neverRecalled as string[]).map((f) => el('li', {}, f))),
  );
}

async function sessionsView(): Promise<HTMLElement> {
  const d = await api('/api/sessions');
  return el(
    'section',
    {},
    el('h2', {}, `Recent sessions (${d.sessions.length})`),
    el('ul', {}, ...(d.sessions as Json[]).map((s) => el('li', {}, JSON.stringify(s)))),
  );
}
