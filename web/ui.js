// ui: what every page of the dashboard shares: API calls that turn errors into words, the token kept in
// localStorage, the page's URL filters (#/page?key=value, so links can be shared), the one switch for flagged
// results every results page has (include_flagged=true in its link), DOM helpers that never put data through
// innerHTML, number formats, and Chart.js (the global Chart, served as /ui/chart.js) with the house defaults.

const TOKEN_KEY = 'ppbench.token';

export class ApiError extends Error {
    constructor(status, code, message, field, detail) {
        super(message);
        this.status = status;
        this.code = code;
        this.field = field || null;
        this.detail = detail || null;
    }
}

export function token() {
    return localStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
    if (value)
        localStorage.setItem(TOKEN_KEY, value);
    else
        localStorage.removeItem(TOKEN_KEY);
}

// Call the API; resolves to the parsed JSON body, rejects with an ApiError carrying error.message.
export async function api(path, {method = 'GET', body, auth = false} = {}) {
    const headers = {};
    if (body !== undefined)
        headers['Content-Type'] = 'application/json';
    if (auth && token())
        headers.Authorization = 'Bearer ' + token();
    let resp;
    try {
        resp = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) {
        throw new ApiError(0, 'unreachable', `cannot reach ppbenchd (${e.message})`);
    }
    const text = await resp.text();
    let doc = null;
    try {
        doc = text ? JSON.parse(text) : null;
    } catch {
        doc = null;
    }
    if (!resp.ok) {
        const e = (doc && doc.error) || {};
        let message = e.message || `${resp.status} ${resp.statusText}`.trim();
        if (resp.status === 401 && auth)
            message += ': enter one at the top right (ppbenchd token create --role submit)';
        throw new ApiError(resp.status, e.code || `http_${resp.status}`, message, e.field, e.detail);
    }
    return doc;
}

// el('div', {class: 'x', onclick: fn, title: 't'}, 'text', child, [more children]): a new element.
export function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
        if (value === null || value === undefined || value === false)
            continue;
        if (key.startsWith('on'))
            node.addEventListener(key.slice(2), value);
        else if (key === 'class')
            node.className = value;
        else if (key === 'value')
            node.value = value;
        else if (key === 'checked' || key === 'selected' || key === 'disabled')
            node[key] = Boolean(value);
        else
            node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children.flat(Infinity)) {
        if (child === null || child === undefined || child === false)
            continue;
        node.append(child instanceof Node ? child : String(child));
    }
    return node;
}

export function link(href, text) {
    return el('a', {href}, text);
}

export function option(value, label, selected) {
    return el('option', {value, selected}, label);
}

// A labelled checkbox or radio button.
export function tick(type, name, value, checked, label) {
    return el('label', {class: 'check'}, el('input', {type, name, value, checked}), label);
}

// One row of a <dl class="facts">.
export function fact(term, ...value) {
    return [el('dt', {}, term), el('dd', {}, ...value)];
}

// An API error in words: the message, then the status and stable code in small print.
export function errorBox(err, what) {
    const status = err instanceof ApiError ? `${err.status || 'no answer'} ${err.code}` : 'error';
    return el('div', {class: 'error', role: 'alert'}, what ? `${what}: ` : '', err.message || String(err),
              el('small', {}, ` (${status}${err.detail ? `: ${err.detail}` : ''})`));
}

// An empty state: what is missing and what to do about it.
export function empty(...children) {
    return el('div', {class: 'empty'}, ...children);
}

export function badge(state) {
    return el('span', {class: `badge ${state || 'none'}`}, state || 'none');
}

export function table(headers, rows) {
    return el('table', {}, el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))),
              el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c) => el('td', {}, c))))));
}

// The current hash, parsed: #/job/42?x=1 -> {page: 'job', arg: '42', query: URLSearchParams}.
export function parseHash() {
    const hash = location.hash.replace(/^#\/?/, '');
    const q = hash.indexOf('?');
    const path = q < 0 ? hash : hash.slice(0, q);
    const [page, ...rest] = path.split('/');
    return {page: page || 'fleet', arg: decodeURIComponent(rest.join('/')),
            query: new URLSearchParams(q < 0 ? '' : hash.slice(q + 1))};
}

// "?a=1&b=x/y,z" from the values that are set (platform ids keep their / and lists their commas, readably).
export function queryString(values) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(values))
        if (v !== '' && v !== null && v !== undefined)
            q.set(k, v);
    const s = q.toString().replaceAll('%2F', '/').replaceAll('%2C', ',');
    return s ? `?${s}` : '';
}

// A link to a page with its filters: #/results?suite=stream&kernel=triad.
export function pageHref(page, values = {}) {
    return `#/${page}${queryString(values)}`;
}

// Write the page's filters into the URL without re-rendering (the link can then be shared).
export function setQuery(page, values) {
    history.replaceState(null, '', pageHref(page, values));
}

export function gbs(bytesPerS) {
    return bytesPerS === null || bytesPerS === undefined ? '' : (bytesPerS / 1e9).toPrecision(4);
}

// Whether a chart of these figures wants a logarithmic axis: they span more than a factor of 20 (a CPU's and a
// GPU's side by side), where a linear one leaves the small ones invisible.
export function wantsLog(values) {
    const v = values.filter((x) => x > 0);
    return v.length > 1 && Math.max(...v) / Math.min(...v) > 20;
}

// "1 job", "3 jobs".
export function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function pct(fraction) {
    return fraction === null || fraction === undefined ? '' : `${(fraction * 100).toFixed(1)} %`;
}

// A result's GFLOP/s, or "no flops" for a kernel that does none (STREAM's copy: 0 by its flop model, not a
// measured zero).
export function gflopsText(r) {
    return r.flops === 0 ? 'no flops' : num(r.gflops);
}

export function num(v, digits = 4) {
    if (v === null || v === undefined)
        return '';
    return v === 0 ? '0' : Number(v).toPrecision(digits);
}

export function when(iso) {
    return iso ? new Date(iso).toLocaleString() : '';
}

export function ago(iso) {
    if (!iso)
        return '';
    const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
    if (s < 90)
        return `${Math.max(s, 0)} s ago`;
    if (s < 5400)
        return `${Math.round(s / 60)} min ago`;
    if (s < 129600)
        return `${Math.round(s / 3600)} h ago`;
    return `${Math.round(s / 86400)} d ago`;
}

export const TERMINAL = ['succeeded', 'failed', 'cancelled'];

// Colours of the data series, in order (the browser test looks for them on the canvas).
export const COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

// The colour of line or bar i: the eight of COLORS, then the lighter Tableau 20 tones, then hues a golden
// angle apart, so that no two of a chart's lines share a colour however many there are.
const MORE_COLORS = ['#aec7e8', '#ffbb78', '#98df8a', '#ff9896', '#c5b0d5', '#c49c94', '#f7b6d2', '#9edae5',
                     '#7f7f7f', '#bcbd22', '#393b79', '#637939'];
export function color(i) {
    if (i < COLORS.length)
        return COLORS[i];
    if (i < COLORS.length + MORE_COLORS.length)
        return MORE_COLORS[i - COLORS.length];
    return `hsl(${Math.round((i * 137.508) % 360)}, 60%, 45%)`;
}

// A Chart.js chart in a box of the given height; destroyed when the page is left.
export function chart(ctx, parent, height, config) {
    const canvas = el('canvas', {role: 'img', 'aria-label': config.label || 'chart'});
    parent.append(el('div', {class: 'chart', style: `height: ${height}px`}, canvas));
    if (!window.Chart)
        throw new Error('Chart.js did not load (/ui/chart.js)');
    config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false},
                                   config.options || {});
    const c = new window.Chart(canvas, config);
    ctx.onLeave(() => window.Chart.getChart(canvas)?.destroy());
    return c;
}

// Destroy the charts under node (before a page redraws that part).
export function destroyCharts(node) {
    for (const canvas of node.querySelectorAll('canvas'))
        window.Chart.getChart(canvas)?.destroy();
}

// Platforms by id, and a platform's peak bandwidth (bytes/s) or null.
export async function platformsById() {
    const doc = await api('/api/v1/platforms');
    return new Map(doc.platforms.map((p) => [p.id, p]));
}

export function peakFraction(result, platforms) {
    const p = platforms.get(result.platform);
    const peak = p && p.peak_bandwidth_bytes_per_s;
    return peak ? result.bandwidth_bytes_per_s / peak : null;
}

// A table's "% of peak" cell: the fraction, or "peak unknown" (set one on the Platform page) where there is none.
export function peakCell(result, platforms) {
    const f = peakFraction(result, platforms);
    return f === null ? el('span', {class: 'muted', title: 'no peak bandwidth known for this platform: an admin ' +
                                                            'sets one on its Platform page'}, 'peak unknown')
                      : pct(f);
}

// What a result measured: "33554432 elements" for STREAM, "4x4x4x8 lattice (512 sites)" for the lattice suites
// (their size is the number of sites, the lattice is in the result's problem document).
export function sizeText(r) {
    const lattice = r.problem && r.problem.lattice;
    if (Array.isArray(lattice))
        return `${lattice.join('x')} lattice (${r.size} sites)`;
    return `${r.size} ${sizeUnit(r.suite)}`;
}

// A result's problem in words, every parameter of its problem key ("precision=fp64;size=33554432;numtimes=100":
// "fp64, 33554432 elements, numtimes 100"; a lattice once, as sizeText says it), as the CLI's tables name it, so two
// problems of one size and precision are told apart. others: only the parameters beyond the precision and the
// size (a table's "problem" column beside its own precision and size columns), '' when there are none.
export function problemText(r, others = false) {
    const lattice = Array.isArray(r.problem && r.problem.lattice);
    const rest = keyParams(r).filter(([k]) => !lattice || k !== 'lattice').map(([k, v]) => `${k} ${v}`);
    return (others ? rest : [r.precision, sizeText(r), ...rest]).join(', ');
}

// A result's problem-key parameters beyond its precision and size, as [name, value] pairs ("numtimes", "20").
export function keyParams(r) {
    return (r.problem_key || '').split(';').map((kv) => kv.split('='))
        .filter(([k, v]) => v !== undefined && k !== 'precision' && k !== 'size');
}

// A result's variant: the name of the code that ran ("temporal", "soa", "3lp-1/k", "default": the values of
// its suite's variant parameters, suite_variant_name in kernels/suite.c), as the API, `ppbench results` and PP's
// policies name it. Never the launch details (work-group sizes, threads, dot chains: they follow the size and
// the device, not the code): launchText shows those, where a single result is described.
export function variantText(r) {
    return r.variant || '';
}

// How the run was launched beyond its variant: "work_group_size 256, dot_groups 2, dot_chain 16777218" (the
// report's provenance.launch; a result stored before the worker split it out has it in its variant document,
// beside the values that name the code), or '' when there is nothing more.
export function launchText(r) {
    // a 0 is a dimension the model's launch does not have (OpenMP's work-group size): left out
    const words = (o) => Object.entries(o).filter(([, x]) => x !== 0).map(([k, x]) => `${k} ${x}`).join(', ');
    const l = r.provenance && r.provenance.launch;
    if (l && typeof l === 'object')
        return words(l);
    const v = r.provenance && r.provenance.variant;
    if (!v || typeof v !== 'object')
        return '';
    const suite = catalogDoc && catalogDoc.suites.find((x) => x.name === r.suite);
    const named = new Set(((suite && suite.params) || []).filter((p) => p.variant).map((p) => p.name));
    return words(Object.fromEntries(Object.entries(v).filter(([k]) => !named.has(k))));
}

// The suite table (GET /api/v1/suites: every suite's kernels, parameters, figure of merit and size unit),
// fetched once per page load: every page that shows results awaits it first.
let catalogPromise = null;
let catalogDoc = null;
export function suites() {
    if (!catalogPromise)
        catalogPromise = api('/api/v1/suites').then((doc) => (catalogDoc = doc),
                                                     (e) => { catalogPromise = null; throw e; });
    return catalogPromise;
}

// The unit of a problem's size, from the suite table ("elements", "sites", "rows").
export function sizeUnit(suite) {
    const s = catalogDoc && catalogDoc.suites.find((x) => x.name === suite);
    return s ? s.size : 'elements';
}

// The suite table's description of a figure of merit (GET /api/v1/suites: `figure_of`: its label, unit, the
// result's field it comes from or "size", and its scale), by the figure's name.
function figureOf(figure) {
    const s = catalogDoc && catalogDoc.suites.find((x) => x.figure === figure);
    return s ? {...s.figure_of, timing: s.timing}
             : {label: 'bandwidth (GB/s)', unit: 'GB/s', from: 'bandwidth_bytes_per_s', scale: 1e-9, timing: 'min'};
}

// A result's figure of merit in its unit: a field of the result times the scale, or for `from` "size" the
// problem's size per second of the suite's timing statistic (a result's size is its work per application).
export function figureValue(figure, r) {
    const f = figureOf(figure);
    if (f.from === 'size') {
        const t = r.stats_s && r.stats_s[f.timing];
        return t > 0 ? r.size / t * f.scale : null;
    }
    return r[f.from] == null ? null : r[f.from] * f.scale;
}

export function figureLabel(figure) {
    return figureOf(figure).label;
}

// Whether the figure is proportional to GFLOP/s (a chart's axis then says it follows the suite's timing rule).
export function figureFlops(figure) {
    return !!figureOf(figure).flops;
}


// A job's runs and what they spent: "2 runs; failures 1/3" (attempts counts its runs, failures the failed ones,
// which alone spend max_attempts: docs/API.md, "Runs and failures").
export function runsText(j) {
    return `${j.attempts} run${j.attempts === 1 ? '' : 's'}; failures ${j.failures ?? 0}/${j.max_attempts}`;
}

// A link to a result's own page (its whole provenance): every table row and chart point leads there.
export function resultHref(r) {
    return `#/result/${r.id}`;
}

export function resultLink(r, text) {
    return el('a', {href: resultHref(r), class: 'result-link'}, text || `#${r.id}`);
}

// The problem a result measured, as a key: suite, kernel, precision, size, variant, and the result's
// problem_key where the server gives one (everything that changes the work per timed unit). A history line
// or a comparison never joins results of two keys.
export function problemKey(r) {
    return [r.suite, r.kernel, r.precision, r.size, r.variant, r.problem_key ?? ''].join('\u0000');
}

// A result's flags as badges (noisy, above_ceiling, excluded, ...), or '' when it has none.
export function flagBadges(r) {
    const flags = r.flags || [];
    return flags.length ? el('span', {class: 'flags'}, flags.map((f) => el('span', {class: `flag ${f}`,
                                                                                 title: flagText(f, r)}, f)))
                        : '';
}

export function flagText(f, r) {
    if (f === 'noisy')
        return `figure unstable: ${r.noise ? `${noiseText(r.noise)}; ` : ''}` +
               `cv ${r.cv === null || r.cv === undefined ? '?' : (100 * r.cv).toFixed(1)} %, ` +
               `max/min ${num(r.max_min, 3)}; kept out of PP unless flagged results are included`;
    if (f === 'above_ceiling')
        return 'above the platform\'s peak: measured wrongly; kept out of PP unless flagged results are included';
    if (f === 'cache_resident')
        return 'its working set fits the platform\'s last-level cache: not a memory figure; kept out of PP unless ' +
               'flagged results are included';
    if (f === 'excluded')
        return `excluded from analysis by an admin${r.note ? `: ${r.note}` : ''}`;
    if (f === 'superseded')
        return `an earlier run of its job${r.superseded_by ? `, superseded by run ${r.superseded_by}` : ''}: ` +
               'counts nowhere, flagged results included';
    return f;
}

// A job's parameters as `ppbench submit --param` takes them ("arraysize=1000 numtimes=3"), or that the suite's
// defaults apply (a schedule's, a job's, a result's job).
export function paramsText(params) {
    return Object.entries(params || {}).map(([k, v]) => `${k}=${v}`).join(' ') || "the suite's defaults";
}

// What each flag means, in general (a badge's title says it of its own result: flagText), in the words of the
// CLI's line under its tables (cli/format.c, flag_words).
const FLAG_MEANING = {
    cache_resident: 'the working set fits the last-level cache: a cache figure, not memory bandwidth',
    noisy: 'its samples were not stable, after the job\'s repeats (docs/METHODOLOGY.md, "Noise"; the badge\'s ' +
           'title has its figures)',
    above_ceiling: 'above the platform\'s peak bandwidth: the measurement is wrong',
    excluded: 'excluded by an admin',
    superseded: 'from an earlier run of its job, replaced by a later run\'s: it counts nowhere',
};

// A line under a table saying what the flags among its rows mean ("flags: noisy: ...; cache_resident: ..."),
// and that flagged figures stay out of PP, baselines and charts unless included; '' when no row has one.
export function flagLegend(rows) {
    const flags = [...new Set(rows.flatMap((r) => r.flags || []))].sort();
    if (!flags.length)
        return '';
    return el('p', {class: 'note flag-legend'}, 'flags: ',
              flags.map((f, i) => [i ? '; ' : '', el('span', {class: `flag ${f}`}, f), `: ${FLAG_MEANING[f] || f}`]),
              flags.some((f) => f !== 'superseded') ? '. Flagged figures are left out of PP, baselines and ' +
                                                      'charts unless flagged results are included' : '');
}

// A result's noise (docs/METHODOLOGY.md, "Noise") in words: its rule, its value and its limit as percentages.
export function noiseText(noise) {
    const what = {best_tenth: `the best tenth of the samples lies ${pct(noise.value)} above the best one`,
                  mean_ci95: `the mean's 95 % confidence interval is ±${pct(noise.value)} of the mean`}[noise.rule] ||
                 `${noise.rule} ${pct(noise.value)}`;
    return `${what} (limit ${pct(noise.limit)}${noise.value > noise.limit ? ': past it' : ''})`;
}

// Flagged results (noisy, above_ceiling, cache_resident, excluded) are kept out of every page's figures, as PP
// keeps them out, unless the page's link says include_flagged=true (GET /api/v1/pp's own parameter): one switch
// in each page's filters (flaggedSwitch), one rule for what it lets through (flaggedSplit), one line for what it
// left out (hiddenLine); the results it lets through carry their badges (flagBadges).
export const FLAGGED = 'include_flagged';

export function includeFlagged(query) {
    return query.get(FLAGGED) === 'true';
}

// The switch's value in a page's filters (and its link): 'true' or ''.
export function flaggedValue(on) {
    return on ? 'true' : '';
}

// The server's words (a note, a reason) with the API's parameter names as the page's switches: "include_flagged
// counts them" reads 'the switch "include flagged results" counts them'.
export function serverWords(text) {
    return (text || '').replace(/include_runners(=true)?/g, 'the switch "include runners"')
        .replace(/include_flagged/g, 'the switch "include flagged results"');
}

export function flaggedSwitch(on) {
    return el('fieldset', {class: 'filter flagged-switch'},
              tick('checkbox', FLAGGED, 'true', on, 'include flagged results'));
}

// A superseded row (an earlier run of its job, replaced by a later run's: docs/API.md, "Runs and failures").
export function superseded(r) {
    return (r.flags || []).includes('superseded');
}

// The results the switch lets through (all when on, else the unflagged ones) and what it kept out, counted as
// GET /api/v1/pp's `hidden` counts it ({"results": n, "flags": {"noisy": n, ...}}, or null when nothing). A
// superseded row never passes nor counts as hidden, whichever the switch: only its job's current run counts (as
// PP leaves them out of include_flagged too); the Job page shows them apart, and `superseded` counts them, for
// hiddenLine to say so.
export function flaggedSplit(all, on) {
    const results = all.filter((r) => !superseded(r));
    const old = all.length - results.length;
    const flagged = results.filter((r) => (r.flags || []).length);
    if (on || !flagged.length)
        return {shown: results, hidden: null, superseded: old};
    const flags = {};
    for (const r of flagged)
        for (const f of r.flags)
            flags[f] = (flags[f] || 0) + 1;
    return {shown: results.filter((r) => !(r.flags || []).length), hidden: {results: flagged.length, flags},
            superseded: old};
}

// "left out: 12 flagged results (noisy 12): include them", the action ticking the switch of form (whose change
// listener reloads the page), and "; 6 rows of earlier runs (superseded ...)" for the superseded rows left out
// (flaggedSplit's count; no switch shows them); null when nothing was left out.
export function hiddenLine(hidden, form, old = 0) {
    if (!(hidden && hidden.results) && !old)
        return null;
    const earlier = old ? `${old} row${old === 1 ? '' : 's'} of earlier runs of their jobs (superseded: a later ` +
                          'run replaced them; they count nowhere, and each job\'s page lists them)' : '';
    if (!hidden || !hidden.results)
        return el('p', {class: 'note flagged-hidden superseded-hidden'}, `left out: ${earlier}`);
    const flags = Object.entries(hidden.flags || {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([f, n]) => `${f} ${n}`).join(', ');
    const include = el('button', {type: 'button', class: 'include-flagged'}, 'include them');
    include.addEventListener('click', () => {
        const box = form.querySelector(`[name="${FLAGGED}"]`);
        box.checked = true;
        box.dispatchEvent(new Event('change', {bubbles: true}));
    });
    const n = hidden.results;
    return el('p', {class: 'note flagged-hidden'},
              `left out: ${n} flagged result${n === 1 ? '' : 's'}${flags ? ` (${flags})` : ''}: `, include,
              earlier ? `; ${earlier}` : '');
}

// The spread of a result's figure over its timed samples: [low, high] (the figure at the slowest and at the
// fastest sample, scaled from the statistic the figure comes from), or null without statistics.
export function figureSpread(value, r) {
    const s = r.stats_s || {};
    const t = r.timing === 'mean' ? s.mean : s.min;
    if (value === null || value === undefined || !(t > 0) || !(s.min > 0) || !(s.max > 0))
        return null;
    return [value * t / s.max, value * t / s.min];
}

// A Chart.js plugin that draws each point's spread (raw.lo..raw.hi) as an error bar.
export const errorBars = {
    id: 'errorBars',
    afterDatasetsDraw(c) {
        const g = c.ctx;
        for (let i = 0; i < c.data.datasets.length; i++) {
            const meta = c.getDatasetMeta(i);
            if (meta.hidden)
                continue;
            const ds = c.data.datasets[i];
            g.save();
            g.strokeStyle = ds.borderColor;
            g.lineWidth = 1.5;
            meta.data.forEach((pt, j) => {
                const raw = ds.data[j];
                if (!raw || raw.lo === undefined || raw.lo === null)
                    return;
                const y = c.scales[meta.yAxisID];
                const top = y.getPixelForValue(raw.hi), bottom = y.getPixelForValue(raw.lo);
                g.beginPath();
                g.moveTo(pt.x, top);
                g.lineTo(pt.x, bottom);
                g.moveTo(pt.x - 4, top);
                g.lineTo(pt.x + 4, top);
                g.moveTo(pt.x - 4, bottom);
                g.lineTo(pt.x + 4, bottom);
                g.stroke();
            });
            g.restore();
        }
    },
};
