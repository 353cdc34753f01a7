// compare: two sides side by side, kernel by kernel: two runs (jobs), two platforms or two models (any side is
// a job, or a platform and model, of one suite). Each row is one problem (suite, kernel, precision, size and
// the result's problem key); a side's figure is its job's result, or the best verified one of the platform and
// model. B against A is a ratio (+4.2 % near 1, ×112 past a factor of two; verdict below says when it is beyond
// the noise), with a chart of both sides per problem beside the table. Flagged results are left out of both sides, with a line saying how many, unless the
// switch includes them (ui.js flaggedSplit; then they count as any other and carry their badges). A model may be a
// runner (issue 27: a site's program a worker registered, GET /api/v1/platforms' runners): the model lists offer
// them by name, marked as runners, and a runner's figure is marked "runner" (verified by its program, not by
// ppbench).
// #/compare?a_job=12&b_job=13, #/compare?suite=stream&a_platform=h/cpu0&a_model=openmp&
// b_platform=h/gpu0&b_model=opencl&include_flagged=true. Results from GET /api/v1/results (filtered in the server).
import {COLORS, api, chart, destroyCharts, el, empty, errorBox, flagBadges, flaggedSplit, flaggedSwitch, flaggedValue,
        flagLegend, hiddenLine, includeFlagged, num, option, platformsById, plural, resultLink, setQuery, suites, wantsLog, figureLabel,
        figureValue, problemText} from './ui.js';

const LIMIT = 1000;

// The rows' key: one problem (the variant is not part of it: two models or runs differ there).
function key(r) {
    return [r.suite, r.kernel, r.precision, r.size, r.problem_key ?? ''].join('\u0000');
}

function sideQuery(f, side) {
    const q = new URLSearchParams({limit: LIMIT});
    if (f[`${side}_job`]) {
        q.set('job', f[`${side}_job`]);
        return q;
    }
    if (!f[`${side}_platform`])
        return null;
    q.set('platform', f[`${side}_platform`]);
    if (f[`${side}_model`])
        q.set('model', f[`${side}_model`]);
    if (f.suite)
        q.set('suite', f.suite);
    return q;
}

// The best verified result per problem, of the results the switch let through.
function bestByProblem(results, catalog) {
    const out = new Map();
    const fig = (r) => figureValue((catalog.suites.find((s) => s.name === r.suite) || {}).figure, r) ?? -1;
    for (const r of results) {
        const b = out.get(key(r));
        if (!b || fig(r) > fig(b))
            out.set(key(r), r);
    }
    return out;
}

// A runner's result (origin runner) says so: its verification is its program's.
function runnerBadge(r) {
    return r.origin === 'runner' ? el('span', {class: 'badge runner', title: `${r.model}: a site's program, ` +
                                               'verified by its program, not by ppbench'}, 'runner') : '';
}

// B against A: the ratio of their figures, and whether it is beyond the noise: twice the larger coefficient of
// variation of the two results' timed samples; where one has none (an import keeps its table's min, mean and
// max times only), beyond the larger spread of the two, max/min of the samples (B outside every ratio the
// samples of either side span); with neither, the noise is unknown and the ratio is still shown.
export function verdict(a, b, va, vb) {
    if (!(va > 0) || !(vb > 0))
        return {ratio: null, text: 'n/a', cls: 'noise'};
    const ratio = vb / va, change = ratio - 1;
    const dir = change > 0 ? 'up' : 'down';
    const cvs = [a.cv, b.cv].filter((c) => c !== null && c !== undefined);
    if (cvs.length === 2) {
        const noise = 2 * Math.max(...cvs);
        return Math.abs(change) <= noise ? {ratio, text: `within the noise (±${(100 * noise).toFixed(1)} %)`, cls: 'noise'}
                                         : {ratio, text: `beyond the noise (±${(100 * noise).toFixed(1)} %)`, cls: dir};
    }
    const spreads = [a.max_min, b.max_min].filter((m) => m !== null && m !== undefined && m >= 1);
    if (spreads.length === 2) {
        const s = Math.max(...spreads);
        const within = ratio <= s && ratio >= 1 / s;
        return {ratio, text: `${within ? 'within' : 'beyond'} the spread of the samples (max/min ×${s.toFixed(3)}; ` +
                             'no cv for an import)', cls: within ? 'noise' : dir};
    }
    return {ratio, text: 'noise unknown', cls: 'noise'};
}

// A ratio as a reader takes it in: "+4.2 %" near 1, "×112" or "÷35" past a factor of two.
export function ratioText(ratio) {
    if (ratio === null)
        return '';
    const f = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
    if (ratio >= 2)
        return `×${f(ratio)}`;
    if (ratio <= 0.5)
        return `÷${f(1 / ratio)}`;
    return `${ratio >= 1 ? '+' : ''}${(100 * (ratio - 1)).toFixed(1)} %`;
}

// Bars of A and B per problem, one chart per figure of merit (GB/s, GFLOP/s, ...), the axis logarithmic where
// the figures ask for it (ui.js wantsLog).
function compareCharts(ctx, parent, rows) {
    const byUnit = new Map();
    for (const x of rows) {
        if (!byUnit.has(x.unit))
            byUnit.set(x.unit, []);
        byUnit.get(x.unit).push(x);
    }
    for (const [unit, list] of byUnit) {
        const log = wantsLog(list.flatMap((x) => [x.va, x.vb]));
        chart(ctx, parent, 60 + 34 * list.length, {
            label: `${unit}: A and B per problem`,
            type: 'bar',
            data: {labels: list.map((x) => x.label),
                   datasets: [{label: 'A', data: list.map((x) => x.va), backgroundColor: COLORS[0]},
                              {label: 'B', data: list.map((x) => x.vb), backgroundColor: COLORS[1]}]},
            options: {indexAxis: 'y',
                      scales: {x: {type: log ? 'logarithmic' : 'linear', beginAtZero: !log,
                                   title: {display: true, text: `${unit}${log ? ' (logarithmic)' : ''}`}}}},
        });
    }
}

// The runners of the fleet's platforms, by name (GET /api/v1/platforms' runners).
function runnerNames(platforms) {
    return new Set([...platforms.values()].flatMap((p) => (p.runners || []).map((r) => r.name)));
}

function sideForm(f, side, platforms, models) {
    const runs = runnerNames(platforms);
    return el('fieldset', {class: 'side'}, el('legend', {}, side.toUpperCase()),
              el('label', {class: 'filter'}, 'job',
                 el('input', {name: `${side}_job`, value: f[`${side}_job`], size: 8, placeholder: 'job id'})),
              ' or ',
              el('label', {class: 'filter'}, 'platform',
                 el('select', {name: `${side}_platform`}, option('', '-'),
                    [...platforms.keys()].map((p) => option(p, p, p === f[`${side}_platform`])))),
              el('label', {class: 'filter'}, 'model',
                 el('select', {name: `${side}_model`}, option('', 'any'),
                    // an imported model (kokkos, ...) is not one of the catalogue's: kept when the link names it
                    [...new Set([...models, ...runs, f[`${side}_model`]].filter(Boolean))]
                        .map((m) => option(m, runs.has(m) ? `${m} (runner)` : m, m === f[`${side}_model`])))));
}

export async function render(root, route, ctx) {
    const q = route.query;
    const names = ['suite', 'a_job', 'a_platform', 'a_model', 'b_job', 'b_platform', 'b_model'];
    const f = Object.fromEntries(names.map((n) => [n, q.get(n) || '']));
    f.include_flagged = flaggedValue(includeFlagged(q));
    const [catalog, platforms] = await Promise.all([suites(), platformsById()]);
    const filters = el('form', {class: 'filters', id: 'compare-form'},
                       el('label', {class: 'filter'}, 'suite',
                          el('select', {name: 'suite'}, option('', 'all'),
                             catalog.suites.map((s) => option(s.name, s.name, s.name === f.suite)))),
                       sideForm(f, 'a', platforms, catalog.models), sideForm(f, 'b', platforms, catalog.models),
                       flaggedSwitch(Boolean(f.include_flagged)), el('button', {type: 'submit'}, 'Compare'));
    const body = el('div', {id: 'compare-body'});
    root.append(el('h1', {}, 'Compare'),
                el('p', {class: 'muted'}, 'two runs (job ids), two platforms or two models, kernel by kernel; ' +
                   'B / A is beyond the noise when it exceeds twice the larger coefficient of variation of ' +
                   'the two results, or, for an import (no samples kept), the larger spread max/min of the two'), filters, body);

    async function load() {
        const qa = sideQuery(f, 'a'), qb = sideQuery(f, 'b');
        destroyCharts(body);
        body.replaceChildren();
        if (!qa || !qb) {
            body.append(empty('choose both sides: a job id, or a platform (and model) for A and for B'));
            return;
        }
        const [da, db] = await Promise.all([api(`/api/v1/results?${qa}`), api(`/api/v1/results?${qb}`)]);
        if (ctx.left)
            return;
        const on = Boolean(f.include_flagged);
        const sa = flaggedSplit(da.results.filter((r) => r.verified), on);
        const sb = flaggedSplit(db.results.filter((r) => r.verified), on);
        const A = bestByProblem(sa.shown, catalog), B = bestByProblem(sb.shown, catalog);
        const keys = [...new Set([...A.keys(), ...B.keys()])].sort();
        const both = flaggedSplit([...da.results, ...db.results].filter((r) => r.verified), on), hidden = both.hidden;
        body.replaceChildren(hiddenLine(hidden, filters, both.superseded) || '');
        if (!keys.length) {
            body.append(empty(`no ${hidden ? 'unflagged ' : ''}verified results on either side`));
            return;
        }
        let beyond = 0, unknown = 0;
        const bars = [];
        const rows = keys.map((k) => {
            const a = A.get(k), b = B.get(k);
            const r = a || b;
            const suite = catalog.suites.find((s) => s.name === r.suite) || {};
            const va = a ? figureValue(suite.figure, a) : null, vb = b ? figureValue(suite.figure, b) : null;
            const v = a && b ? verdict(a, b, va, vb) : {ratio: null, text: `only in ${a ? 'A' : 'B'}`, cls: 'noise'};
            if (v.cls === 'up' || v.cls === 'down')
                beyond++;
            if (v.text === 'noise unknown')
                unknown++;
            bars.push({unit: figureLabel(suite.figure), label: `${r.suite}.${r.kernel} ${problemText(r)}`,
                       va: va ?? null, vb: vb ?? null});
            const cell = (x, val) => (x ? [num(val), ' ', el('small', {class: 'muted'},
                                                            x.cv === null || x.cv === undefined ? ''
                                                                : `cv ${(100 * x.cv).toFixed(1)} %`),
                                           ' ', resultLink(x), ' ', flagBadges(x), runnerBadge(x)]
                                        : '-');
            return el('tr', {'data-key': k.replaceAll('\u0000', '/')},
                      el('td', {}, `${r.suite}.${r.kernel}`), el('td', {}, r.precision), el('td', {}, String(r.size)),
                      el('td', {class: 'problem-others'}, problemText(r, true)),
                      el('td', {}, figureLabel(suite.figure)), el('td', {}, cell(a, va)), el('td', {}, cell(b, vb)),
                      el('td', {class: `change ${v.cls}`}, ratioText(v.ratio)),
                      el('td', {class: `verdict ${v.cls}`}, v.text));
        });
        // what was compared at all: a problem is its whole key, so two numtimes of one size are two problems, each
        // "only in" one side (issue 25: "12 problems, 0 changed" read as like for like when nothing was paired)
        const paired = keys.filter((k) => A.has(k) && B.has(k)).length;
        body.append(el('p', {id: 'compare-summary'},
                       paired ? `${plural(keys.length, 'problem')}, ${paired} in both A and B: ${beyond} changed beyond ` +
                                `the noise` + (unknown ? `, ${unknown} whose noise is unknown` : '')
                              : `${plural(keys.length, 'problem')}, none in both A and B: nothing to compare (a ` +
                                'problem is every parameter of its key, numtimes too: see the parameters column)'));
        compareCharts(ctx, body, bars);
        body.append(
                    el('table', {id: 'compare-table'},
                       el('thead', {}, el('tr', {}, ['problem', 'precision', 'size', 'parameters', 'figure', 'A', 'B',
                                                      'B / A', ''].map((h) => el('th', {}, h)))),
                       el('tbody', {}, rows)),
                    flagLegend([...A.values(), ...B.values()]));
    }

    const go = () => {
        for (const n of names)
            f[n] = (filters.elements[n].value || '').trim();
        f.include_flagged = flaggedValue(filters.elements.include_flagged.checked);
        setQuery('compare', f);
        load().catch((e) => body.replaceChildren(errorBox(e, 'compare')));
    };
    filters.addEventListener('submit', (ev) => {
        ev.preventDefault();
        go();
    });
    // the switch acts at once, as on the other pages; the sides wait for Compare
    filters.addEventListener('change', (ev) => {
        if (ev.target.name === 'include_flagged')
            go();
    });
    await load();
}
