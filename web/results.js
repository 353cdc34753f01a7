// results: stored results of every suite (STREAM, and the lattice suites with their lattice and variant),
// filtered by suite, kernel, platform, model and precision (all in the URL:
// #/results?suite=stream&kernel=triad&platform=h/cpu0&model=openmp&precision=fp64&tag=nightly&metric=bw). Calls
// GET /api/v1/results (every filter applied in the server; "more" follows next_cursor), /suites and
// /platforms. Flagged results (noisy, above_ceiling, ...) are left out of bars and rows, and a line says how
// many, unless the switch includes them (&include_flagged=true: ui.js flaggedSplit); included, they carry their
// badges. Bars: the best verified figure of each platform, model and problem (its key: two numtimes of one size
// are two problems; its best variant), a bar's label naming every parameter of its key where the problems of a
// chart differ (ui.js problemText, as the table's "parameters" column does beside precision and size);
// bandwidth, GFLOP/s ("no flops" for a kernel that does none) or % of the platform's peak bandwidth (only where
// the platform has a peak); a flagged bar has a border in the flags' colour, which the legend's last entry explains. Each row links to the
// result's page. The kernel filter offers the kernels of the chosen suite (every suite's when none is). The
// table's page is in the URL too (&page=3), so a reload or a way back from a result keeps it.
import {color, api, chart, destroyCharts, el, empty, errorBox, flagBadges, flaggedSplit, flaggedSwitch, flaggedValue,
        gbs, flagLegend, gflopsText, hiddenLine, includeFlagged, link, num, option, pageHref, pct, peakCell, peakFraction, platformsById, resultLink,
        setQuery, problemText, sizeText, table, variantText, wantsLog, when, suites} from './ui.js';

const LIMIT = 1000;
const PAGE = 50; // table rows per page
const FLAG_BORDER = '#b35900'; // a flagged bar's outline
const METRICS = {
    bw: {label: 'bandwidth (GB/s)', value: (r) => r.bandwidth_bytes_per_s / 1e9},
    gflops: {label: 'GFLOP/s', value: (r) => r.gflops},
    peak: {label: '% of peak bandwidth', value: (r, f) => (f === null ? null : 100 * f)},
};

function select(name, label, options, value) {
    return el('label', {class: 'filter'}, label,
              el('select', {name}, option('', 'all'), options.map((o) => option(o, o, o === value))));
}

// The best verified result (its best variant) of each series (platform, model and problem: suite, kernel,
// precision, size and problem key), in a stable order, of the results the switch let through.
function best(results) {
    const groups = new Map();
    for (const r of results) {
        if (!r.verified)
            continue;
        const key = [r.suite, r.kernel, r.platform, r.model, r.precision, r.size, r.problem_key ?? ''].join('\u0000');
        const b = groups.get(key);
        if (!b || r.bandwidth_bytes_per_s > b.bandwidth_bytes_per_s)
            groups.set(key, r);
    }
    const order = (a, b) => a.suite.localeCompare(b.suite) || a.kernel.localeCompare(b.kernel) ||
                            a.platform.localeCompare(b.platform) || a.model.localeCompare(b.model) ||
                            a.precision.localeCompare(b.precision) || a.size - b.size ||
                            (a.problem_key ?? '').localeCompare(b.problem_key ?? '');
    return [...groups.values()].sort(order);
}

// One chart per suite (its figures share a scale only within a suite), each with one bar per series: the rows
// grouped by kernel and platform (and problem when they differ), one colour per model, the axis
// logarithmic where the figures ask for it (ui.js wantsLog: a CPU's 0.005 GB/s beside a GPU's 1349).
function barsChart(ctx, parent, rows, platforms, metric) {
    const m = METRICS[metric] || METRICS.bw;
    const shown = rows.filter((r) => m.value(r, peakFraction(r, platforms)) !== null);
    if (!shown.length) {
        parent.append(empty(metric === 'peak' ? 'no platform among these results has a known peak: set one with ' +
                                                'PPBENCH_PEAK_GBS_<ID> on the worker or on the platform\'s page (admin), or choose another figure'
                                              : 'nothing to draw'));
        return;
    }
    for (const suite of [...new Set(shown.map((r) => r.suite))])
        suiteBars(ctx, parent, shown.filter((r) => r.suite === suite), platforms, m);
}

function suiteBars(ctx, parent, shown, platforms, m) {
    const log = wantsLog(shown.map((r) => m.value(r, peakFraction(r, platforms))));
    const mixed = new Set(shown.map((r) => problemText(r))).size > 1;
    const kernelOf = (r) => `${r.suite}.${r.kernel}`;
    const labelOf = (r) => `${kernelOf(r)} · ${r.platform}${mixed ? ` · ${problemText(r)}` : ''}`;
    const labels = [...new Set(shown.map(labelOf))];
    const models = [...new Set(shown.map((r) => r.model))];
    const row = (label, model) => shown.find((r) => labelOf(r) === label && r.model === model);
    const flags = [...new Set(shown.flatMap((r) => r.flags || []))];
    // the outline's meaning, as a legend entry of its own (no bars): only when a bar has one
    const outline = flags.length ? [{label: `outlined: flagged (${flags.join(', ')})`, data: labels.map(() => null),
                                     backgroundColor: 'rgba(0,0,0,0)', borderColor: FLAG_BORDER, borderWidth: 3}] : [];
    parent.append(el('h3', {}, shown[0].suite));
    chart(ctx, parent, 90 + 22 * labels.length * models.length, {
        label: `${shown[0].suite} results: ${m.label}`,
        type: 'bar',
        data: {
            labels,
            datasets: models.map((model, i) => ({
                label: model,
                data: labels.map((l) => {
                    const r = row(l, model);
                    return r ? m.value(r, peakFraction(r, platforms)) : null;
                }),
                backgroundColor: color(i),
                borderColor: FLAG_BORDER,
                borderWidth: labels.map((l) => ((row(l, model)?.flags || []).length ? 3 : 0)),
            })).concat(outline),
        },
        options: {
            indexAxis: 'y',
            scales: {x: {type: log ? 'logarithmic' : 'linear', beginAtZero: !log,
                         title: {display: true, text: `${m.label}${log ? ' (logarithmic)' : ''}`}}},
            plugins: {
                tooltip: {callbacks: {afterLabel: (item) => {
                    const r = row(labels[item.dataIndex], models[item.datasetIndex]);
                    if (!r)
                        return '';
                    const f = peakFraction(r, platforms);
                    const source = platforms.get(r.platform)?.peak_source;
                    const peak = f === null ? 'peak unknown' : `${pct(f)} of peak (${source})`;
                    return [`${gbs(r.bandwidth_bytes_per_s)} GB/s, ${gflopsText(r)} GFLOP/s`, peak,
                            `${problemText(r)}, job #${r.job_id}`, variantText(r),
                            (r.flags || []).length ? `flagged: ${r.flags.join(', ')}` : ''];
                }}},
            },
        },
    });
}

function resultsTable(results, platforms) {
    return table(['result', 'time', 'job', 'platform', 'model', 'suite', 'kernel', 'precision', 'size', 'parameters', 'variant',
                  'GB/s', '% of peak', 'GFLOP/s', 'timing', 'flags', 'verified'],
                 results.map((r) => [
                     resultLink(r), when(r.created_at), r.job_id ? link(`#/job/${r.job_id}`, `#${r.job_id}`) : 'import',
                     link(pageHref('platform', {id: r.platform, suite: r.suite, kernel: r.kernel}), r.platform),
                     r.model, r.suite, r.kernel, r.precision, sizeText(r), problemText(r, true), el('small', {}, variantText(r)),
                     gbs(r.bandwidth_bytes_per_s),
                     peakCell(r, platforms), gflopsText(r), r.timing || '', flagBadges(r),
                     r.verified ? 'yes' : el('span', {class: 'reason'}, `no: ${r.error || ''}`),
                 ]));
}

export async function render(root, route, ctx) {
    const q = route.query;
    const f = {suite: q.get('suite') || '', kernel: q.get('kernel') || '', platform: q.get('platform') || '',
               model: q.get('model') || '', precision: q.get('precision') || '', tag: q.get('tag') || '',
               metric: q.get('metric') || 'bw', include_flagged: flaggedValue(includeFlagged(q)),
               page: /^[1-9]\d*$/.test(q.get('page') || '') ? q.get('page') : ''};
    const [catalog, platforms] = await Promise.all([suites(), platformsById()]);
    // the kernels of the chosen suite, every suite's when none is
    const kernelsOf = (suite) => [...new Set(catalog.suites.filter((s) => !suite || s.name === suite)
                                                           .flatMap((s) => s.kernels))];
    const kernels = kernelsOf(f.suite);
    const precisions = [...new Set(catalog.suites.flatMap((s) => s.params.filter((p) => p.name === 'precision')
                                                                         .flatMap((p) => p.choices)))];
    const filters = el('form', {class: 'filters'},
                       select('suite', 'suite', catalog.suites.map((s) => s.name), f.suite),
                       select('kernel', 'kernel', kernels, f.kernel),
                       select('platform', 'platform', [...platforms.keys()], f.platform),
                       select('model', 'model', catalog.models, f.model),
                       select('precision', 'precision', precisions, f.precision),
                       el('label', {class: 'filter'}, 'tag', el('input', {name: 'tag', value: f.tag, size: 12,
                                                                          placeholder: 'any tag'})),
                       el('label', {class: 'filter'}, 'figure',
                          el('select', {name: 'metric'},
                             Object.entries(METRICS).map(([k, m]) => option(k, m.label, k === f.metric)))),
                       flaggedSwitch(Boolean(f.include_flagged)));
    const body = el('div');
    root.append(el('h1', {}, 'Results'), filters, body);
    const link_ = () => setQuery('results', {...f, metric: f.metric === 'bw' ? '' : f.metric,
                                             page: f.page === '1' ? '' : f.page});

    let loads = 0; // a slower earlier answer must not overwrite a later one
    async function load() {
        const seq = ++loads;
        const params = new URLSearchParams({limit: LIMIT});
        for (const k of ['suite', 'kernel', 'platform', 'model', 'precision', 'tag'])
            if (f[k])
                params.set(k, f[k]);
        let doc;
        try {
            doc = await api(`/api/v1/results?${params}`);
        } catch (e) {
            if (seq === loads)
                body.replaceChildren(errorBox(e, 'results'));
            return;
        }
        if (ctx.left || seq !== loads)
            return;
        const on = Boolean(f.include_flagged);
        const {shown: results, hidden, superseded: old} = flaggedSplit(doc.results, on);
        const csv = new URLSearchParams(params);
        csv.set('format', 'csv');
        destroyCharts(body);
        let line = hiddenLine(hidden, filters, old), loaded = doc.results; // the line counts every page loaded
        body.replaceChildren(line || '');
        if (!results.length) {
            const any = Object.entries(f).some(([k, v]) => v && k !== 'metric' && k !== 'include_flagged');
            body.append(hidden ? empty('no unflagged results match these filters')
                        : empty(any ? 'no results match these filters: clear some of them, or '
                                    : 'no results yet: ', link('#/submit', 'submit a job'),
                                any ? '' : ' and they appear here when it finishes'));
            return;
        }
        const rows = best(results);
        body.append(el('h2', {}, `Best of each series (${rows.length})`));
        barsChart(ctx, body, rows, platforms, f.metric);
        const bs = new URLSearchParams(params);
        bs.set('format', 'babelstream');
        // The table a page at a time (PAGE rows; "next" fetches the server's next page when the loaded run out),
        // starting at the link's page.
        let all = results, cursor = doc.next_cursor, at = 0;
        const tableBox = el('div');
        const pos = el('span', {class: 'muted', id: 'results-pages'});
        const prev = el('button', {type: 'button', id: 'results-prev'}, 'previous');
        const next = el('button', {type: 'button', id: 'results-next'}, 'next');
        function showPage() {
            const t = resultsTable(all.slice(at, at + PAGE), platforms);
            t.id = 'results-table';
            tableBox.replaceChildren(t, flagLegend(all.slice(at, at + PAGE)));
            pos.textContent = `rows ${at + 1}–${Math.min(at + PAGE, all.length)} of ${all.length}${cursor ? '+' : ''}`;
            prev.disabled = at === 0;
            next.disabled = at + PAGE >= all.length && !cursor;
        }
        async function fill(want) { // load the server's pages until row want is loaded, or none is left
            while (want >= all.length && cursor) {
                const more = await api(`/api/v1/results?${new URLSearchParams({...Object.fromEntries(params), cursor})}`);
                all = all.concat(flaggedSplit(more.results, on).shown);
                cursor = more.next_cursor;
                loaded = loaded.concat(more.results);
                const split = flaggedSplit(loaded, on);
                const now = hiddenLine(split.hidden, filters, split.superseded);
                if (now) {
                    line ? line.replaceWith(now) : body.prepend(now);
                    line = now;
                }
            }
        }
        function turn(to) {
            at = to;
            f.page = String(at / PAGE + 1);
            link_();
            showPage();
        }
        prev.addEventListener('click', () => turn(Math.max(0, at - PAGE)));
        next.addEventListener('click', async () => {
            await fill(at + PAGE);
            if (ctx.left)
                return;
            turn(at + PAGE < all.length ? at + PAGE : at);
        });
        const want = (Number(f.page || 1) - 1) * PAGE;
        await fill(want);
        if (ctx.left || seq !== loads)
            return;
        at = Math.min(want, Math.max(0, Math.floor((all.length - 1) / PAGE) * PAGE));
        showPage();
        body.append(el('h2', {}, `Latest results (${results.length}${doc.next_cursor ? '+' : ''})`),
                    el('p', {}, el('a', {href: `/api/v1/results?${csv}`}, 'CSV of these results'),
                       ' (each row with its platform, model, variant, date, job and timing rule) · ',
                       el('a', {href: `/api/v1/results?${bs}`}, 'BabelStream CSV')),
                    tableBox, el('p', {class: 'pager'}, prev, ' ', pos, ' ', next));
    }

    filters.addEventListener('submit', (ev) => ev.preventDefault());
    filters.addEventListener('change', (ev) => {
        f[ev.target.name] = ev.target.type === 'checkbox' ? flaggedValue(ev.target.checked) : ev.target.value.trim();
        if (ev.target.name === 'suite') { // the kernels of that suite only; a kernel it lacks is let go
            const offered = kernelsOf(f.suite);
            if (!offered.includes(f.kernel))
                f.kernel = '';
            filters.querySelector('[name="kernel"]')
                .replaceWith(select('kernel', 'kernel', offered, f.kernel).querySelector('select'));
        }
        f.page = ''; // other rows: from the first page
        link_();
        load();
    });
    await load();
}
