// platform: one platform's facts (GET /api/v1/platforms) and the history of a kernel's figure over time, one
// line per model and problem (precision, size, variant, and the result's problem key: ui.js problemKey), so a
// line never joins runs of different problems; each point's spread over its timed samples as an error bar,
// noisy and flagged points drawn apart, its provenance (ppbench version, compiler, threads, variant, job) in
// its tooltip, and a click opens the result's page (GET /api/v1/results?platform=&suite=&kernel=&precision=
// &size=&variant=: filtered in the server). #/platform?id=h/cpu0&suite=stream&kernel=triad&metric=bw|gflops
// &precision=&size=&variant=.
import {COLORS, ago, api, badge, chart, destroyCharts, el, empty, errorBox, errorBars, fact, figureSpread,
        flagBadges, gbs, link, num, option, pageHref, problemKey, resultHref, resultLink, setQuery, sizeText, table,
        variantText, when, suites} from './ui.js';

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
                 : p.origin === 'import' ? [badge('imported'), ' imported results only: no worker serves it, by design']
                 : 'none: no worker serves it';
    return el('dl', {class: 'facts'},
              fact('name', `${p.name} (${p.vendor || 'unknown vendor'})`),
              fact('kind', p.kind),
              fact('host', p.host || 'none (imported)'),
              fact('models', p.models.join(', ') || 'none'),
              fact('peak bandwidth', peak, el('small', {class: 'muted'}, ` (${p.peak_source || 'no source'})`)),
              fact('memory', p.memory_bytes ? `${(p.memory_bytes / 2 ** 30).toFixed(1)} GiB` : 'unknown'),
              fact('compute units', String(p.compute_units || 'unknown')),
              device ? fact('device', device) : null,
              fact('worker', worker));
}

// An admin sets the platform's peak (recorded with its source) or removes an imported platform.
function adminForm(p) {
    const gbsIn = el('input', {id: 'peak-gbs', type: 'number', step: 'any', min: 0, size: 8,
                               value: p.peak_bandwidth_bytes_per_s ? p.peak_bandwidth_bytes_per_s / 1e9 : ''});
    const source = el('input', {id: 'peak-source', size: 24, placeholder: 'source, e.g. datasheet'});
    const msg = el('div');
    const path = `/api/v1/platforms/${p.id}`;
    const form = el('form', {class: 'admin filters', id: 'peak-form'},
                    el('label', {class: 'filter'}, 'peak GB/s', gbsIn), el('label', {class: 'filter'}, 'source', source),
                    el('button', {type: 'submit'}, 'Set peak (admin)'), msg);
    form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        msg.replaceChildren();
        try {
            await api(`${path}/peak`, {method: 'PUT', auth: true,
                                       body: {peak_gbs: gbsIn.value === '' ? null : Number(gbsIn.value),
                                              ...(source.value.trim() ? {source: source.value.trim()} : {})}});
            window.dispatchEvent(new HashChangeEvent('hashchange'));
        } catch (e) {
            msg.replaceChildren(errorBox(e, 'peak not set'));
        }
    });
    if (p.origin === 'import') {
        const del = el('button', {type: 'button', id: 'platform-delete', class: 'danger'},
                       'Remove this imported platform and its results (admin)');
        del.addEventListener('click', async () => {
            if (!confirm(`Remove ${p.id} and its ${p.results} results?`))
                return;
            try {
                await api(path, {method: 'DELETE', auth: true});
                location.hash = '#/fleet';
            } catch (e) {
                msg.replaceChildren(errorBox(e, 'not removed'));
            }
        });
        form.append(' ', del);
    }
    return form;
}

function historyChart(ctx, parent, results, metric) {
    const value = metric === 'gflops' ? (r) => r.gflops : (r) => r.bandwidth_bytes_per_s / 1e9;
    // One line per model and problem: never a line across sizes, variants or precisions.
    const series = new Map();
    for (const r of results) {
        const key = `${r.model}\u0000${problemKey(r)}`;
        if (!series.has(key))
            series.set(key, []);
        series.get(key).push(r);
    }
    const keys = [...series.keys()].sort();
    for (const k of keys)
        series.get(k).sort((a, b) => new Date(a.created_at) - new Date(b.created_at));
    const name = (r) => [r.model, r.precision, sizeText(r), variantText(r)].filter(Boolean).join(' · ');
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
                label: name(series.get(k)[0]),
                data: series.get(k).map((r) => {
                    const y = value(r);
                    const spread = figureSpread(y, r);
                    return {x: new Date(r.created_at).getTime(), y, r, lo: spread ? spread[0] : null,
                            hi: spread ? spread[1] : null};
                }),
                problem: k,
                borderColor: COLORS[i % COLORS.length],
                backgroundColor: COLORS[i % COLORS.length],
                pointStyle: series.get(k).map((r) => ((r.flags || []).length ? 'triangle' : 'circle')),
                pointRadius: series.get(k).map((r) => ((r.flags || []).length ? 7 : 4)),
                pointHoverRadius: 8,
            })),
        },
        plugins: [errorBars],
        options: {
            parsing: false,
            interaction: {mode: 'nearest', intersect: false},
            onClick: (_ev, items) => {
                if (items.length)
                    location.hash = resultHref(items[0].element.$context.raw.r);
            },
            scales: {
                x: {type: 'linear', min: first - pad, max: last + pad,
                    ticks: {maxTicksLimit: 8, callback: (v) => new Date(v).toLocaleString(undefined, fmt)},
                    title: {display: true, text: `time of the run (${days})`}},
                y: {beginAtZero: true, title: {display: true, text: unit}},
            },
            plugins: {
                tooltip: {callbacks: {
                    title: (items) => when(items[0].raw.r.created_at),
                    label: (item) => `${item.dataset.label}: ${num(item.raw.y)} ${unit}` +
                                     (item.raw.lo === null ? '' : ` (samples ${num(item.raw.lo)} to ${num(item.raw.hi)})`) +
                                     ((item.raw.r.flags || []).length ? ` [${item.raw.r.flags.join(', ')}]` : ''),
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
               metric: q.get('metric') || 'bw', precision: q.get('precision') || '', size: q.get('size') || '',
               variant: q.get('variant') || ''};
    if (!suiteOf(f.suite).kernels.includes(f.kernel))
        f.kernel = firstKernel(suiteOf(f.suite));
    const kernelSel = el('select', {name: 'kernel'});
    const sizeSel = el('select', {name: 'size', id: 'history-size'});
    const variantSel = el('select', {name: 'variant', id: 'history-variant'});
    // The sizes and variants this kernel has on the platform (one request without those filters).
    async function fillChoices() {
        const params = new URLSearchParams({platform: id, suite: f.suite, kernel: f.kernel, limit: LIMIT});
        const doc = await api(`/api/v1/results?${params}`);
        const sizes = [...new Set(doc.results.map((r) => r.size))].sort((a, b) => a - b);
        const variants = [...new Set(doc.results.map((r) => r.variant))].sort();
        const fake = (v) => ({variant: v, provenance: null});
        sizeSel.replaceChildren(option('', 'all'), ...sizes.map((x) => option(String(x), String(x),
                                                                             String(x) === f.size)));
        variantSel.replaceChildren(option('', 'all'),
                                   ...variants.map((v) => option(v, variantText(fake(v)) || 'none', v === f.variant)));
    }
    const fillKernels = () => kernelSel.replaceChildren(...suiteOf(f.suite).kernels.map((k) => option(k, k,
                                                                                              k === f.kernel)));
    fillKernels();
    const filters = el('form', {class: 'filters'},
                       el('label', {class: 'filter'}, 'suite',
                          el('select', {name: 'suite'},
                             catalog.suites.map((s) => option(s.name, s.name, s.name === f.suite)))),
                       el('label', {class: 'filter'}, 'kernel', kernelSel),
                       el('label', {class: 'filter'}, 'precision',
                          el('select', {name: 'precision'}, option('', 'all'),
                             ['fp64', 'fp32'].map((x) => option(x, x, x === f.precision)))),
                       el('label', {class: 'filter'}, 'size', sizeSel),
                       el('label', {class: 'filter'}, 'variant', variantSel),
                       el('label', {class: 'filter'}, 'figure',
                          el('select', {name: 'metric'}, option('bw', 'bandwidth (GB/s)', f.metric === 'bw'),
                             option('gflops', 'GFLOP/s', f.metric === 'gflops'))));
    const body = el('div');
    root.append(facts(p), adminForm(p), el('h2', {}, 'History'), filters,
                el('p', {}, link(pageHref('scaling', {platform: id, suite: f.suite}), 'against problem size')), body);

    let loads = 0; // a slower earlier answer must not overwrite a later one
    async function load() {
        const seq = ++loads;
        const params = new URLSearchParams({platform: id, suite: f.suite, kernel: f.kernel, limit: LIMIT});
        for (const k of ['precision', 'size', 'variant'])
            if (f[k])
                params.set(k, f[k]);
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
        const lines = new Set(ok.map((r) => `${r.model}\u0000${problemKey(r)}`)).size;
        const noisy = ok.filter((r) => (r.flags || []).length).length;
        const note = `${ok.length} verified runs in ${lines} lines (one per model and problem: precision, size, ` +
                     `variant)${failed ? `, ${failed} failed (not drawn)` : ''}` +
                     `${noisy ? `, ${noisy} flagged (triangles)` : ''}`;
        body.append(el('p', {class: 'muted', id: 'history-note', 'data-lines': lines},
                       `${note}; bars show the spread of the timed samples; hover a point for its provenance, ` +
                       'click it for the whole'),
                    table(['result', 'time', 'job', 'model', 'precision', 'size', 'variant', 'GB/s', 'GFLOP/s',
                           'flags', 'ppbench', 'compiler'],
                          ok.slice(0, 50).map((r) => [
                              resultLink(r), when(r.created_at),
                              r.job_id ? link(`#/job/${r.job_id}`, `#${r.job_id}`) : 'import',
                              r.model, r.precision, sizeText(r), el('small', {}, variantText(r)),
                              gbs(r.bandwidth_bytes_per_s), num(r.gflops), flagBadges(r),
                              (r.provenance || {})['ppbench.version'] || '', (r.provenance || {}).compiler || '',
                          ])));
    }

    filters.addEventListener('change', (ev) => {
        f[ev.target.name] = ev.target.value;
        if (ev.target.name === 'suite') {
            f.kernel = firstKernel(suiteOf(f.suite));
            fillKernels();
        }
        const kernelChanged = ev.target.name === 'suite' || ev.target.name === 'kernel';
        if (kernelChanged)
            f.size = f.variant = '';
        setQuery('platform', {...f, metric: f.metric === 'bw' ? '' : f.metric});
        (kernelChanged ? fillChoices() : Promise.resolve()).then(load)
            .catch((e) => body.replaceChildren(errorBox(e, 'history')));
    });
    await fillChoices();
    await load();
}
