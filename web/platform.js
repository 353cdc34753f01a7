// platform: one platform's facts (GET /api/v1/platforms) and the history of a kernel's figure over time, one
// line per model and problem (precision, size, variant, and the result's problem key: ui.js problemKey), so a
// line never joins runs of different problems; each point's spread over its timed samples as an error bar,
// flagged points left out with a line saying how many, or with the switch (&include_flagged=true) drawn as
// triangles, its provenance (ppbench version, compiler, threads, variant, job) in
// its tooltip, and a click opens the result's page (GET /api/v1/results?platform=&suite=&kernel=&precision=
// &size=&variant=: filtered in the server). #/platform?id=h/cpu0&suite=stream&kernel=triad&metric=bw|gflops
// &precision=&size=&variant=&include_flagged=true. With &result=N (the Health page's evidence link) it shows that
// result's problem,
// the verdict it got, the band of the baseline it was judged against (GET /api/v1/baselines?platform=&result=:
// median +- z_limit x scale, drawn behind the lines, with the median dashed) and the result ringed.
import {color, ago, api, badge, chart, destroyCharts, el, empty, errorBox, errorBars, fact, figureSpread,
        flagBadges, flaggedSplit, flaggedSwitch, flaggedValue, flagLegend, gbs, gflopsText, hiddenLine, includeFlagged, link, num, option,
        pageHref, plural, problemKey, resultHref, resultLink, setQuery, problemText, sizeText, table, variantText, when, suites} from './ui.js';

const LIMIT = 1000;
const BAND_FILL = 'rgba(46, 125, 50, 0.18)';
const BAND_LINE = '#2e7d32';
const FLAG_RING = '#c62828';

// The evidence of result rid on platform id: the result, its verdict (none: judged ok) and the band of the
// baseline it was judged against (a verdict's), or of its problem's baseline now when it got no verdict.
async function evidenceOf(id, rid) {
    const [r, doc] = await Promise.all([
        api(`/api/v1/results/${rid}`),
        api(`/api/v1/baselines?${new URLSearchParams({platform: id, result: rid})}`),
    ]);
    const v = doc.verdicts.find((x) => x.result_id === r.id) || null;
    const b = doc.baselines.find((x) => x.model === r.model && x.suite === r.suite && x.kernel === r.kernel &&
                                        x.precision === r.precision && x.size === r.size &&
                                        x.variant === r.variant) || null;
    const from = v ? {median: v.baseline_median, mad: v.baseline_mad, n: v.baseline_n, band: v.band}
                   : {median: b?.median, mad: b?.mad, n: b?.n, band: b?.band};
    return {r, verdict: v, ...from, judging: doc.judging, key: `${r.model}\u0000${problemKey(r)}`};
}

function evidencePanel(e) {
    const j = e.judging;
    // No verdict is "ok" only where the result was judged against a band: a flagged result is not judged, and a
    // baseline of fewer than min_results results has no band yet.
    const judged = !(e.r.flags || []).length && e.r.verified && e.band;
    const what = e.verdict ? `${e.verdict.verdict}${e.verdict.confirmed ? '' : ' (suspect, waiting for its repeat)'}`
               : (e.r.flags || []).length ? `not judged (flagged ${e.r.flags.join(', ')}: flagged results are not judged)`
               : judged ? 'ok (no verdict: within its band)' : 'no verdict (its baseline has no band yet)';
    const verdict = e.verdict ? e.verdict.verdict : judged ? 'ok' : 'none';
    return el('div', {id: 'evidence', class: 'card', 'data-verdict': verdict,
                      style: `border-left:6px solid ${e.verdict ? FLAG_RING : BAND_LINE};margin:8px 0`},
              el('div', {}, el('strong', {}, `Evidence: result ${e.r.id}, ${what}`),
                 ` · ${gbs(e.r.bandwidth_bytes_per_s)} GB/s · `, resultLink(e.r)),
              e.verdict ? el('div', {class: 'reason'}, e.verdict.reason) : null,
              el('div', {class: 'note', id: 'evidence-band'},
                 e.band ? `band ${gbs(e.band[0])} to ${gbs(e.band[1])} GB/s (green): median ${gbs(e.median)} GB/s ` +
                          `± ${j.z_limit} × max(1.4826 × MAD ${gbs(e.mad)}, ${+(100 * j.min_band).toFixed(2)} % of the ` +
                          `median), of the ${e.n} results of its baseline's window`
                        : `no band: its baseline had ${e.n ?? 0} results (a band from ${j.min_results} on)`,
                 e.verdict && e.verdict.peers_n ? `; its ${e.verdict.peers_n} peers' median ` +
                                                  `${gbs(e.verdict.peers_median)} GB/s` : '',
                 e.r.verified ? '' : '; its verification failed, so it is not drawn'));
}

// Draws an evidence's band behind the lines (and its median dashed) and rings its result; what it drew is
// left on the chart as $evidence (pixels) for the browser test.
const evidencePlugin = {
    id: 'evidence',
    beforeDatasetsDraw(c, _args, opts) {
        c.$evidence = {};
        if (!opts.band)
            return;
        const y = c.scales.y, a = c.chartArea, g = c.ctx;
        const top = Math.max(a.top, y.getPixelForValue(opts.band[1] / 1e9));
        const bottom = Math.min(a.bottom, y.getPixelForValue(opts.band[0] / 1e9));
        const mid = y.getPixelForValue(opts.median / 1e9);
        g.save();
        g.fillStyle = BAND_FILL;
        g.fillRect(a.left, top, a.right - a.left, bottom - top);
        g.strokeStyle = BAND_LINE;
        g.setLineDash([6, 4]);
        g.beginPath();
        g.moveTo(a.left, mid);
        g.lineTo(a.right, mid);
        g.stroke();
        g.restore();
        c.$evidence.band = {top, bottom, median: mid};
    },
    afterDatasetsDraw(c, _args, opts) {
        for (let i = 0; i < c.data.datasets.length; i++) {
            const j = c.data.datasets[i].data.findIndex((p) => p.r.id === opts.resultId);
            if (j < 0)
                continue;
            const pt = c.getDatasetMeta(i).data[j];
            const g = c.ctx;
            g.save();
            g.strokeStyle = FLAG_RING;
            g.lineWidth = 3;
            g.beginPath();
            g.arc(pt.x, pt.y, 11, 0, 2 * Math.PI);
            g.stroke();
            g.restore();
            c.$evidence.point = {x: pt.x, y: pt.y, dataset: i};
        }
    },
};

// The provenance lines of a result's tooltip: what produced it.
function provenance(r) {
    const p = r.provenance || {};
    const backend = p.backend || {};
    const threads = backend['openmp.threads'];
    const lines = [`job #${r.job_id ?? 'import'}, result ${r.id}, ${problemText(r)}`];
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

function historyChart(ctx, parent, results, metric, evidence) {
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
    const name = (r) => [r.model, problemText(r), variantText(r)].filter(Boolean).join(' · ');
    // Time ticks as fine as the runs' span needs; a margin so the first and last points are not on the edge.
    const times = results.map((r) => new Date(r.created_at).getTime());
    const first = Math.min(...times);
    const last = Math.max(...times);
    const span = last - first;
    const pad = Math.max(span * 0.05, 30e3);
    const day = (t) => new Date(t).toLocaleDateString();
    const days = span >= 86400e3 ? `${day(first)} to ${day(last)}` : day(first);
    const unit = metric === 'gflops' ? 'GFLOP/s' : 'GB/s';
    // the band is of bytes/s: drawn on the bandwidth figure only
    const band = evidence && metric !== 'gflops' ? evidence.band : null;
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
                borderColor: color(i),
                backgroundColor: color(i),
                pointStyle: series.get(k).map((r) => ((r.flags || []).length ? 'triangle' : 'circle')),
                pointRadius: series.get(k).map((r) => ((r.flags || []).length ? 7 : 4)),
                pointHoverRadius: 8,
            })),
        },
        plugins: [errorBars, evidencePlugin],
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
                y: {beginAtZero: true, suggestedMax: band ? band[1] / 1e9 : undefined,
                    title: {display: true, text: unit}},
            },
            plugins: {
                evidence: {band, median: evidence?.median, resultId: evidence?.r.id},
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
               variant: q.get('variant') || '', result: q.get('result') || '',
               include_flagged: flaggedValue(includeFlagged(q))};
    let evidence = null;
    if (f.result) {
        evidence = await evidenceOf(id, f.result);
        Object.assign(f, {suite: evidence.r.suite, kernel: evidence.r.kernel, precision: evidence.r.precision,
                          size: String(evidence.r.size), variant: evidence.r.variant});
    }
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
                             option('gflops', 'GFLOP/s', f.metric === 'gflops'))),
                       flaggedSwitch(Boolean(f.include_flagged)));
    const body = el('div');
    root.append(facts(p), adminForm(p), el('h2', {}, 'History'), evidence ? evidencePanel(evidence) : '', filters,
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
        const {shown: ok, hidden, superseded: old} = flaggedSplit(doc.results.filter((r) => r.verified),
                                                                  Boolean(f.include_flagged));
        const failed = doc.results.filter((r) => !r.verified).length;
        body.append(hiddenLine(hidden, filters, old) || '');
        if (!ok.length) {
            body.append(empty(`no ${hidden ? 'unflagged ' : ''}verified ${f.suite}.${f.kernel} results on ${id} yet: `,
                              link(pageHref('submit', {platform: id}), 'submit a job here')));
            return;
        }
        historyChart(ctx, body, ok, f.metric, evidence);
        const lines = new Set(ok.map((r) => `${r.model}\u0000${problemKey(r)}`)).size;
        const flagged = ok.filter((r) => (r.flags || []).length).length;
        const note = `${plural(ok.length, 'verified run')} in ${plural(lines, 'line')} (one per model and problem: ` +
                     `every parameter of its key, numtimes too, and its variant)${failed ? `, ${failed} failed (not drawn)` : ''}` +
                     `${flagged ? `, ${flagged} flagged (triangles)` : ''}`;
        body.append(el('p', {class: 'muted', id: 'history-note', 'data-lines': lines},
                       `${note}; bars show the spread of the timed samples; hover a point for its provenance, ` +
                       'click it for the whole'),
                    table(['result', 'time', 'job', 'model', 'precision', 'size', 'parameters', 'variant', 'GB/s', 'GFLOP/s',
                           'flags', 'ppbench', 'compiler'],
                          ok.slice(0, 50).map((r) => [
                              resultLink(r), when(r.created_at),
                              r.job_id ? link(`#/job/${r.job_id}`, `#${r.job_id}`) : 'import',
                              r.model, r.precision, sizeText(r), problemText(r, true), el('small', {}, variantText(r)),
                              gbs(r.bandwidth_bytes_per_s), gflopsText(r), flagBadges(r),
                              (r.provenance || {})['ppbench.version'] || '', (r.provenance || {}).compiler || '',
                          ])),
                    flagLegend(ok.slice(0, 50)));
    }

    filters.addEventListener('change', (ev) => {
        f[ev.target.name] = ev.target.type === 'checkbox' ? flaggedValue(ev.target.checked) : ev.target.value;
        // another problem: the evidence is of its own
        if (!['metric', 'include_flagged'].includes(ev.target.name) && evidence) {
            evidence = null;
            f.result = '';
            root.querySelector('#evidence')?.remove();
        }
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
