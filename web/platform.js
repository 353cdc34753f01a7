// platform: one platform's facts (GET /api/v1/platforms) and the history of a kernel's figure over time, one
// line per model and precision, each point's provenance (ppbench version, compiler, threads, variant, job) in
// its tooltip (GET /api/v1/results?platform=&suite=&kernel=), for any suite of the catalogue.
// #/platform?id=h/cpu0&suite=stream&kernel=triad&metric=bw|gflops.
import {COLORS, ago, api, badge, chart, destroyCharts, el, empty, errorBox, fact, gbs, link, num, option, pageHref,
        setQuery, sizeText, table, variantText, when, suites} from './ui.js';

const LIMIT = 1000;

// The provenance lines of a result's tooltip: what produced it.
function provenance(r) {
    const p = r.provenance || {};
    const backend = p.backend || {};
    const threads = backend['openmp.threads'];
    const lines = [`job #${r.job_id ?? 'import'}, result ${r.id}, ${r.precision}, ${sizeText(r)}`];
    if (r.variant)
        lines.push(`variant ${variantText(r)}`);
    if (p['ppbench.version'])
        lines.push(`ppbench ${p['ppbench.version']} on ${p.host || '?'}`);
    if (p.compiler)
        lines.push(p.compiler);
    for (const [k, v] of Object.entries(backend))
        if (/version|driver|device/.test(k))
            lines.push(`${k} ${v}`);
    if (threads)
        lines.push(`OMP threads ${threads}, bind ${backend['openmp.proc_bind'] || '?'}`);
    if (p.cpus_allowed)
        lines.push(`cpus ${p.cpus_allowed}`);
    if (p.kernel)
        lines.push(p.kernel);
    return lines;
}

function facts(p) {
    const peak = p.peak_bandwidth_bytes_per_s ? `${gbs(p.peak_bandwidth_bytes_per_s)} GB/s` : 'unknown';
    const device = [p.uuid, p.pci_bus_id].filter(Boolean).join(', ');
    const worker = p.worker ? [badge(p.worker.state), ` #${p.worker.id}, heartbeat ${ago(p.worker.last_heartbeat)}`]
                            : 'none: no worker serves it';
    return el('dl', {class: 'facts'},
              fact('name', `${p.name} (${p.vendor || 'unknown vendor'})`),
              fact('kind', p.kind),
              fact('host', p.host || 'imported'),
              fact('models', p.models.join(', ') || 'none'),
              fact('peak bandwidth', peak, el('small', {class: 'muted'}, ` (${p.peak_source || 'no source'})`)),
              fact('memory', p.memory_bytes ? `${(p.memory_bytes / 2 ** 30).toFixed(1)} GiB` : 'unknown'),
              fact('compute units', String(p.compute_units || 'unknown')),
              device ? fact('device', device) : null,
              fact('worker', worker));
}

function historyChart(ctx, parent, results, metric) {
    const value = metric === 'gflops' ? (r) => r.gflops : (r) => r.bandwidth_bytes_per_s / 1e9;
    const series = new Map();
    for (const r of results) {
        const key = `${r.model} ${r.precision}`;
        if (!series.has(key))
            series.set(key, []);
        series.get(key).push(r);
    }
    const keys = [...series.keys()].sort();
    for (const k of keys)
        series.get(k).sort((a, b) => new Date(a.created_at) - new Date(b.created_at));
    // Time ticks as fine as the runs' span needs; a margin so the first and last points are not on the edge.
    const times = results.map((r) => new Date(r.created_at).getTime());
    const first = Math.min(...times);
    const last = Math.max(...times);
    const span = last - first;
    const pad = Math.max(span * 0.05, 30e3);
    const day = (t) => new Date(t).toLocaleDateString();
    const days = span >= 86400e3 ? `${day(first)} to ${day(last)}` : day(first);
    const unit = metric === 'gflops' ? 'GFLOP/s' : 'GB/s';
    const fmt = span < 120e3 ? {hour: '2-digit', minute: '2-digit', second: '2-digit'}
              : span < 86400e3 ? {hour: '2-digit', minute: '2-digit'}
              : {year: 'numeric', month: 'short', day: 'numeric'};
    return chart(ctx, parent, 360, {
        label: 'history',
        type: 'line',
        data: {
            datasets: keys.map((k, i) => ({
                label: k,
                data: series.get(k).map((r) => ({x: new Date(r.created_at).getTime(), y: value(r), r})),
                borderColor: COLORS[i % COLORS.length],
                backgroundColor: COLORS[i % COLORS.length],
                pointRadius: 4,
                pointHoverRadius: 7,
            })),
        },
        options: {
            parsing: false,
            interaction: {mode: 'nearest', intersect: false},
            scales: {
                x: {type: 'linear', min: first - pad, max: last + pad,
                    ticks: {maxTicksLimit: 8, callback: (v) => new Date(v).toLocaleString(undefined, fmt)},
                    title: {display: true, text: `time of the run (${days})`}},
                y: {beginAtZero: true, title: {display: true, text: unit}},
            },
            plugins: {
                tooltip: {callbacks: {
                    title: (items) => when(items[0].raw.r.created_at),
                    label: (item) => `${item.dataset.label}: ${num(item.raw.y)} ${unit}`,
                    afterLabel: (item) => provenance(item.raw.r),
                }},
            },
        },
    });
}

export async function render(root, route, ctx) {
    const q = route.query;
    const id = q.get('id') || route.arg;
    const [catalog, plats] = await Promise.all([suites(), api('/api/v1/platforms')]);
    const p = plats.platforms.find((x) => x.id === id);
    root.append(el('h1', {}, `Platform ${id || ''}`));
    if (!p) {
        root.append(empty(id ? `no platform "${id}": ` : 'no platform chosen: ', 'pick one on ',
                          link('#/fleet', 'Fleet')));
        return;
    }
    const suiteOf = (name) => catalog.suites.find((s) => s.name === name) || catalog.suites[0];
    const firstKernel = (s) => (s.kernels.includes('triad') ? 'triad' : s.kernels[0]);
    const f = {id, suite: suiteOf(q.get('suite') || 'stream').name, kernel: q.get('kernel') || '',
               metric: q.get('metric') || 'bw'};
    if (!suiteOf(f.suite).kernels.includes(f.kernel))
        f.kernel = firstKernel(suiteOf(f.suite));
    const kernelSel = el('select', {name: 'kernel'});
    const fillKernels = () => kernelSel.replaceChildren(...suiteOf(f.suite).kernels.map((k) => option(k, k,
                                                                                              k === f.kernel)));
    fillKernels();
    const filters = el('form', {class: 'filters'},
                       el('label', {class: 'filter'}, 'suite',
                          el('select', {name: 'suite'},
                             catalog.suites.map((s) => option(s.name, s.name, s.name === f.suite)))),
                       el('label', {class: 'filter'}, 'kernel', kernelSel),
                       el('label', {class: 'filter'}, 'figure',
                          el('select', {name: 'metric'}, option('bw', 'bandwidth (GB/s)', f.metric === 'bw'),
                             option('gflops', 'GFLOP/s', f.metric === 'gflops'))));
    const body = el('div');
    root.append(facts(p), el('h2', {}, 'History'), filters,
                el('p', {}, link(pageHref('scaling', {platform: id, suite: f.suite}), 'against problem size')), body);

    let loads = 0; // a slower earlier answer must not overwrite a later one
    async function load() {
        const seq = ++loads;
        const params = new URLSearchParams({platform: id, suite: f.suite, kernel: f.kernel, limit: LIMIT});
        const doc = await api(`/api/v1/results?${params}`);
        if (ctx.left || seq !== loads)
            return;
        destroyCharts(body);
        body.replaceChildren();
        const ok = doc.results.filter((r) => r.verified);
        const failed = doc.results.length - ok.length;
        if (!ok.length) {
            body.append(empty(`no verified ${f.suite}.${f.kernel} results on ${id} yet: `,
                              link(pageHref('submit', {platform: id}), 'submit a job here')));
            return;
        }
        historyChart(ctx, body, ok, f.metric);
        const note = `${ok.length} verified runs${failed ? `, ${failed} failed (not drawn)` : ''}`;
        body.append(el('p', {class: 'muted'}, `${note}; hover a point for its provenance`),
                    table(['time', 'job', 'model', 'precision', 'size', 'GB/s', 'GFLOP/s', 'ppbench', 'compiler'],
                          ok.slice(0, 50).map((r) => [
                              when(r.created_at), r.job_id ? link(`#/job/${r.job_id}`, `#${r.job_id}`) : 'import',
                              r.model, r.precision, sizeText(r), gbs(r.bandwidth_bytes_per_s), num(r.gflops),
                              (r.provenance || {})['ppbench.version'] || '', (r.provenance || {}).compiler || '',
                          ])));
    }

    filters.addEventListener('change', (ev) => {
        f[ev.target.name] = ev.target.value;
        if (ev.target.name === 'suite') {
            f.kernel = firstKernel(suiteOf(f.suite));
            fillKernels();
        }
        setQuery('platform', {...f, metric: f.metric === 'bw' ? '' : f.metric});
        load().catch((e) => body.replaceChildren(errorBox(e, 'history')));
    });
    await load();
}
