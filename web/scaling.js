// scaling: a suite's figure of merit against problem size on one platform (paper 002's Figures 1-5: effective
// bandwidth against rows, from the latency-bound regime to the DRAM-bound one), one line per kernel, model and
// precision, x logarithmic, with the platform's verified STREAM triad at its largest size as the reference line. Results come
// from sweeps (the Submit page's sweep field, ppbench submit --sweep, POST /api/v1/jobs with "sweep"), or any jobs of several sizes. Where one size has several
// results, the line takes the best (the table says how many). Flagged results, the reference's too, are left out
// with a line saying how many, unless the switch includes them (ui.js flaggedSplit): then a flagged point is a
// triangle and its row has its badges. #/scaling?platform=h/cpu0&suite=cg&precision=fp64&include_flagged=true
// Without a suite in the link, the page opens on the suite with the most results on the platform (its newest
// LIMIT), else stream: a first view with something in it (defaultSuite).
import {color, api, chart, destroyCharts, el, empty, errorBox, flagBadges, flaggedSplit, flaggedSwitch, flaggedValue,
        flagLegend, gbs, hiddenLine, includeFlagged, keyParams, link, num, option, pageHref, pct, setQuery, sizeUnit, suites, table,
        figureLabel, figureValue} from './ui.js';

const LIMIT = 2000;

// Figure of merit of a result in the suite's unit (job.js: GB/s, GFLOP/s or G interactions/s).
function figureOf(suite, r) {
    return figureValue(suite.figure, r);
}

// The table under the chart: a row per line and size (its best figure, runs, share of the triad, job, flags),
// and the line saying what its flags mean.
function sizeTable(suite, series, triad) {
    const rows = [];
    for (const [key, at] of series)
        for (const [size, p] of [...at.entries()].sort((a, b) => a[0] - b[0]))
            rows.push([key, `${size} ${sizeUnit(suite.name)}`, num(p.best), String(p.n),
                       triad && suite.figure_of.from === 'bandwidth_bytes_per_s' ? pct(p.best * 1e9 / triad.bandwidth_bytes_per_s) : '',
                       p.r.job_id ? link(`#/job/${p.r.job_id}`, `#${p.r.job_id}`) : 'import', flagBadges(p.r)]);
    return [table(['kernel · model · precision · parameters', 'size', figureLabel(suite.figure), 'runs', 'of triad', 'job', 'flags'], rows),
            flagLegend([...series.values()].flatMap((at) => [...at.values()].map((p) => p.r)))];
}

// Lines: key "kernel · model · precision[ · other parameters]" -> Map(size -> {best, n}). A line is one problem
// but for its size: the parameters of its key that follow the size one to one among these results (cg's n, a
// lattice) are the size itself; any other (numtimes, iterations) makes another line (issue 25: two numtimes at
// one size were one point).
function lines(suite, results) {
    // a parameter is the size when its (size, value) pairs are as many as its sizes and as its values (one to
    // one), and it takes more than one value
    const pairs = new Map(); // name -> {pairs, sizes, values}, each a Set
    for (const r of results)
        for (const [k, v] of keyParams(r)) {
            const p = pairs.get(k) || pairs.set(k, {pairs: new Set(), sizes: new Set(), values: new Set()}).get(k);
            p.pairs.add(`${r.size}\u0000${v}`);
            p.sizes.add(r.size);
            p.values.add(v);
        }
    const sizeLike = new Set([...pairs].filter(([, p]) => p.values.size > 1 && p.pairs.size === p.sizes.size &&
                                                          p.pairs.size === p.values.size).map(([k]) => k));
    const out = new Map();
    for (const r of results) {
        const others = keyParams(r).filter(([k]) => !sizeLike.has(k)).map(([k, v]) => `${k} ${v}`).join(', ');
        const key = `${r.kernel} · ${r.model} · ${r.precision}${others ? ` · ${others}` : ''}`;
        if (!out.has(key))
            out.set(key, new Map());
        const at = out.get(key);
        const v = figureOf(suite, r);
        const cur = at.get(r.size);
        if (!cur || v > cur.best)
            at.set(r.size, {best: v, n: (cur ? cur.n : 0) + 1, r});
        else
            cur.n++;
    }
    return out;
}

function scalingChart(ctx, parent, suite, series, triad) {
    const unit = figureLabel(suite.figure);
    const datasets = [...series.entries()].map(([key, at], i) => {
        const points = [...at.entries()].sort((a, b) => a[0] - b[0]);
        return {
            label: key,
            data: points.map(([size, p]) => ({x: size, y: p.best, r: p.r})),
            pointStyle: points.map(([, p]) => ((p.r.flags || []).length ? 'triangle' : 'circle')), // flagged: included
            pointRadius: points.map(([, p]) => ((p.r.flags || []).length ? 7 : 3)),
            showLine: true,
            borderColor: color(i),
            backgroundColor: color(i),
        };
    });
    if (triad && suite.figure_of.from === 'bandwidth_bytes_per_s') {
        const xs = datasets.flatMap((d) => d.data.map((p) => p.x));
        datasets.push({label: `STREAM triad at ${triad.size} elements (${gbs(triad.bandwidth_bytes_per_s)} GB/s)`,
                       data: [{x: Math.min(...xs), y: triad.bandwidth_bytes_per_s / 1e9},
                              {x: Math.max(...xs), y: triad.bandwidth_bytes_per_s / 1e9}],
                       showLine: true, pointRadius: 0, borderDash: [6, 4], borderColor: '#555',
                       backgroundColor: '#555'});
    }
    return chart(ctx, parent, 360, {
        label: `${unit} against ${suite.size}`,
        type: 'scatter',
        data: {datasets},
        options: {
            scales: {
                x: {type: 'logarithmic', title: {display: true, text: `${suite.size} (log)`}},
                y: {beginAtZero: true, title: {display: true, text: `${unit} (${suite.timing} time)`}},
            },
            plugins: {tooltip: {callbacks: {label: (item) => `${item.dataset.label}: ${num(item.raw.y)} ${unit} at ${
                item.raw.x} ${suite.size}${(item.raw.r?.flags || []).length ? ` [${item.raw.r.flags.join(', ')}]` : ''}`}}},
        },
    });
}

// The suite with the most results on platform (ties: the catalogue's order), else stream, else the first.
async function defaultSuite(catalog, platform) {
    const names = catalog.suites.map((s) => s.name);
    const counts = new Map();
    if (platform) {
        const doc = await api(`/api/v1/results?${new URLSearchParams({platform, limit: LIMIT, view: 'summary'})}`);
        for (const r of doc.results)
            counts.set(r.suite, (counts.get(r.suite) || 0) + 1);
    }
    const most = names.filter((n) => counts.get(n)).sort((a, b) => counts.get(b) - counts.get(a))[0];
    return most || (names.includes('stream') ? 'stream' : names[0]);
}

export async function render(root, route, ctx) {
    const q = route.query;
    const [catalog, plats] = await Promise.all([suites(), api('/api/v1/platforms')]);
    const platform = q.get('platform') || (plats.platforms[0] || {}).id || '';
    const f = {platform, suite: q.get('suite') || await defaultSuite(catalog, platform),
               precision: q.get('precision') || '', include_flagged: flaggedValue(includeFlagged(q))};
    if (ctx.left)
        return;
    root.append(el('h1', {}, 'Scaling'),
                el('p', {class: 'muted'}, 'the figure of merit against problem size on one platform, one line per ',
                   'kernel, model and precision; a sweep (one job per size) comes from the ',
                   link(pageHref('submit', {suite: f.suite, platform: f.platform}), 'Submit page'), '\'s sweep field, ',
                   el('code', {}, `ppbench submit --sweep ${f.suite === 'cg' ? 'n=20..100:20' : 'arraysize=2^20..2^28'}`),
                   ' or the API (', el('code', {}, '"sweep": {"param": "n", "values": "20..100:20"}'), ')'));
    if (!plats.platforms.length) {
        root.append(empty('no platforms yet: start a worker (see ', link('#/fleet', 'Fleet'), ')'));
        return;
    }
    const filters = el('form', {class: 'filters'},
                       el('label', {class: 'filter'}, 'platform',
                          el('select', {name: 'platform'},
                             plats.platforms.map((p) => option(p.id, p.id, p.id === f.platform)))),
                       el('label', {class: 'filter'}, 'suite',
                          el('select', {name: 'suite'},
                             catalog.suites.map((s) => option(s.name, s.name, s.name === f.suite)))),
                       el('label', {class: 'filter'}, 'precision',
                          el('select', {name: 'precision'}, option('', 'any', !f.precision),
                             option('fp64', 'fp64', f.precision === 'fp64'),
                             option('fp32', 'fp32', f.precision === 'fp32'))),
                       flaggedSwitch(Boolean(f.include_flagged)));
    const body = el('div', {id: 'scaling-body'});
    root.append(filters, body);

    let loads = 0;
    async function load() {
        const seq = ++loads;
        const suite = catalog.suites.find((s) => s.name === f.suite) || catalog.suites[0];
        const [doc, triads] = await Promise.all([
            api(`/api/v1/results?${new URLSearchParams({platform: f.platform, suite: suite.name, limit: LIMIT,
                                                         view: 'summary'})}`),
            api(`/api/v1/results?${new URLSearchParams({platform: f.platform, suite: 'stream', kernel: 'triad',
                                                         limit: 200, view: 'summary'})}`),
        ]);
        if (ctx.left || seq !== loads)
            return;
        destroyCharts(body);
        body.replaceChildren();
        const on = Boolean(f.include_flagged);
        const verified = doc.results.filter((r) => r.verified && (!f.precision || r.precision === f.precision));
        const {shown: ok, hidden, superseded: old} = flaggedSplit(verified, on);
        const sizes = new Set(ok.map((r) => r.size));
        body.append(hiddenLine(hidden, filters, old) || '');
        // The reference: the triad at the largest size measured (the DRAM-bound one; a cache-resident triad is
        // faster and no ceiling for a large problem), the best of its runs.
        const okTriads = flaggedSplit(triads.results.filter((r) => r.verified &&
                                                            (!f.precision || r.precision === f.precision)), on).shown;
        const largest = Math.max(...okTriads.map((r) => r.size));
        const triad = okTriads.filter((r) => r.size === largest)
                          .sort((a, b) => b.bandwidth_bytes_per_s - a.bandwidth_bytes_per_s)[0];
        const series = lines(suite, ok);
        if (sizes.size < 2) {
            const none = `no ${hidden ? 'unflagged ' : ''}verified results`;
            const what = `${ok.length ? 'one size only' : none} of ${suite.name} on ${f.platform}${
                f.precision ? ` in ${f.precision}` : ''}: `;
            // sizes that only flagged results have: the switch shows them, not another job
            const more = new Set(flaggedSplit(verified, true).shown.map((r) => r.size).filter((n) => !sizes.has(n)));
            body.append(more.size
                ? empty(what, `${more.size} more size${more.size === 1 ? ' has' : 's have'} only flagged results, ` +
                              'left out (the line above): include them to see the curve')
                : empty(what, link(pageHref('submit', {platform: f.platform}), 'submit jobs'),
                        ' of several sizes, or a sweep'),
                ...(ok.length ? sizeTable(suite, series, triad) : [])); // no curve, but the size's figures
            return;
        }
        scalingChart(ctx, body, suite, series, triad);
        body.append(el('p', {class: 'muted', id: 'scaling-note'},
                       `${series.size} line${series.size === 1 ? '' : 's'} over ${sizes.size} sizes; ` +
                       (triad ? `reference: the best verified STREAM triad on ${f.platform} at its largest size (${
                                    triad.size} elements), flagged ones ${on ? 'counted' : 'left out'}` :
                                `no ${on ? '' : 'unflagged '}verified STREAM triad on this platform for a reference line`)),
                    ...sizeTable(suite, series, triad));
    }

    filters.addEventListener('change', (ev) => {
        f[ev.target.name] = ev.target.type === 'checkbox' ? flaggedValue(ev.target.checked) : ev.target.value;
        setQuery('scaling', f);
        load().catch((e) => body.replaceChildren(errorBox(e, 'scaling')));
    });
    await load();
}
