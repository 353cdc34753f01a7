// portability: the cascade plot of paper 003 (Sewall et al., P3HPC 2020) and the PP table for a problem (a
// kernel of any suite: stream.triad, wilson.dslash, staggered.dslash), a precision (default: the suite's), a
// platform set and an efficiency (application or architectural), from
// GET /api/v1/pp?problem=stream.triad&platforms=a,b&efficiency=app|arch&precision=. The figure of merit is the
// bandwidth from the suite's byte model (for a lattice suite at one precision, proportional to its GFLOP/s).
// Per application, its efficiencies sorted from high to low across the platforms (a line that stops early marks
// a platform it does not run on, and PP = 0), with PP, the harmonic mean of the efficiencies, beside it.
// #/portability?problem=wilson.dslash&platforms=a,b&efficiency=app&precision=fp32
import {COLORS, api, chart, destroyCharts, el, empty, errorBox, gbs, link, num, option, pageHref, queryString, setQuery,
        sizeUnit, table, tick, suites} from './ui.js';

const EFFICIENCY = {app: 'application efficiency (of the best achieved on the platform)',
                    arch: 'architectural efficiency (of the platform peak bandwidth)'};

function effs(app) {
    return (app.efficiencies || []).filter((e) => e.efficiency !== null && e.efficiency !== undefined);
}

// The cascade plot: for each application its efficiencies from high to low, position k holding its k-th best
// platform; PP per application beside it.
function cascade(ctx, parent, doc, names) {
    const apps = doc.applications;
    const n = doc.platforms.length;
    const sorted = apps.map((a) => effs(a).sort((x, y) => y.efficiency - x.efficiency));
    const top = Math.max(1, ...sorted.flat().map((e) => e.efficiency));
    const max = top > 1 ? undefined : 1; // an architectural efficiency above 1 means a wrong peak: show it
    const kind = doc.efficiency === 'arch' ? 'architectural' : 'application';
    const left = el('div');
    const right = el('div');
    parent.append(el('div', {class: 'cascade'}, left, right));
    chart(ctx, left, 380, {
        label: 'cascade plot',
        type: 'line',
        data: {
            labels: Array.from({length: n}, (_, i) => String(i + 1)),
            datasets: apps.map((a, i) => ({
                label: `${a.application} (PP ${num(a.pp, 3)})`,
                data: sorted[i].map((e) => e.efficiency),
                borderColor: COLORS[i % COLORS.length],
                backgroundColor: COLORS[i % COLORS.length],
                pointRadius: 5,
                pointHoverRadius: 8,
                borderWidth: 2,
                clip: false,
            })),
        },
        options: {
            scales: {
                x: {offset: true, title: {display: true, text: 'platforms, from the highest efficiency to the lowest'}},
                y: {min: 0, max, title: {display: true, text: `${kind} efficiency`}},
            },
            plugins: {
                tooltip: {callbacks: {
                    title: (items) => {
                        const e = sorted[items[0].datasetIndex][items[0].dataIndex];
                        return names.get(e.platform) || e.platform;
                    },
                    label: (item) => `${item.dataset.label}: ${num(item.raw, 3)}`,
                    afterLabel: (item) => {
                        const e = sorted[item.datasetIndex][item.dataIndex];
                        const lines = [`figure ${gbs(e.fom)} GB/s, result ${e.result_id}`];
                        return e.variant ? [...lines, `variant ${e.variant}`] : lines;
                    },
                }},
            },
        },
    });
    chart(ctx, right, 380, {
        label: 'PP per application',
        type: 'bar',
        data: {
            labels: apps.map((a) => a.application),
            datasets: [{label: 'PP', data: apps.map((a) => a.pp),
                        backgroundColor: apps.map((_, i) => COLORS[i % COLORS.length])}],
        },
        options: {
            scales: {y: {min: 0, max, title: {display: true, text: 'PP (harmonic mean of the efficiencies)'}}},
            plugins: {legend: {display: false},
                      tooltip: {callbacks: {afterLabel: (item) => apps[item.dataIndex].pp_note || ''}}},
        },
    });
}

function ppTable(doc) {
    const plats = doc.platforms;
    return table(['application', 'model', 'variant policy', 'PP', ...plats.map((p) => p.id), 'note'],
                 doc.applications.map((a) => {
                     const by = new Map(effs(a).map((e) => [e.platform, e]));
                     return [a.application, a.model, a.variant_policy, el('strong', {}, num(a.pp, 3)),
                             ...plats.map((p) => {
                                 const e = by.get(p.id);
                                 if (!e)
                                     return el('span', {class: 'muted', title: 'no verified result: PP is 0'}, 'none');
                                 const title = `${gbs(e.fom)} GB/s${e.variant ? `, variant ${e.variant}` : ''}`;
                                 return el('span', {title}, num(e.efficiency, 3));
                             }),
                             a.pp_note || ''];
                 }));
}

function peaks(doc) {
    return table(['platform', 'name', 'peak GB/s', 'peak source'],
                 doc.platforms.map((p) => [link(pageHref('platform', {id: p.id}), p.id), p.name || '',
                                           p.peak_bandwidth_bytes_per_s ? gbs(p.peak_bandwidth_bytes_per_s) : 'unknown',
                                           p.peak_source || '']));
}

// The page's filters as the API's query and the page's link.
function filterValues(f) {
    return {problem: f.problem, platforms: f.platforms.join(','), efficiency: f.efficiency, precision: f.precision};
}

export async function render(root, route, ctx) {
    const q = route.query;
    const [catalog, plats] = await Promise.all([suites(), api('/api/v1/platforms')]);
    const problems = catalog.suites.flatMap((s) => s.kernels.map((k) => `${s.name}.${k}`));
    const all = plats.platforms.map((p) => p.id);
    const names = new Map(plats.platforms.map((p) => [p.id, `${p.id} (${p.name})`]));
    const f = {problem: q.get('problem') || (problems.includes('stream.triad') ? 'stream.triad' : problems[0]),
               platforms: q.has('platforms') ? q.get('platforms').split(',').filter(Boolean) : all,
               efficiency: q.get('efficiency') === 'arch' ? 'arch' : 'app',
               precision: ['fp32', 'fp64'].includes(q.get('precision')) ? q.get('precision') : ''};
    root.append(el('h1', {}, 'Performance portability'));
    if (!all.length) {
        root.append(empty('no platforms yet: start workers (see ', link('#/fleet', 'Fleet'), ') and run jobs on them'));
        return;
    }
    const form = el('form', {class: 'filters'},
                    el('label', {class: 'filter'}, 'problem',
                       el('select', {name: 'problem'}, problems.map((p) => option(p, p, p === f.problem)))),
                    el('label', {class: 'filter'}, 'precision',
                       el('select', {name: 'precision'}, option('', "the suite's default", !f.precision),
                          ['fp64', 'fp32'].map((p) => option(p, p, p === f.precision)))),
                    el('fieldset', {class: 'filter'}, el('legend', {}, 'efficiency'),
                       Object.keys(EFFICIENCY).map((k) => tick('radio', 'efficiency', k, k === f.efficiency, k))),
                    el('fieldset', {class: 'filter'}, el('legend', {}, 'platform set'),
                       all.map((id) => tick('checkbox', 'platform', id, f.platforms.includes(id), names.get(id)))));
    const body = el('div');
    root.append(form, body);

    let loads = 0; // a slower earlier answer must not overwrite a later one
    async function load() {
        const seq = ++loads;
        if (!f.platforms.length) {
            destroyCharts(body);
            body.replaceChildren(empty('choose at least one platform'));
            return;
        }
        const query = queryString(filterValues(f));
        let doc;
        try {
            doc = await api(`/api/v1/pp${query}`);
        } catch (e) {
            const what = e.status === 501 ? 'this ppbenchd does not compute performance portability yet'
                                          : 'performance portability';
            if (!ctx.left && seq === loads) {
                destroyCharts(body);
                body.replaceChildren(errorBox(e, what));
            }
            return;
        }
        if (ctx.left || seq !== loads)
            return;
        destroyCharts(body);
        body.replaceChildren();
        if (!doc.applications.length) {
            const stream = f.problem.startsWith('stream.');
            body.append(empty(`no verified ${f.problem} results on these platforms: `, link('#/submit', 'run jobs'),
                              ' with several models', stream ? ', or import BabelStream output with ' : '',
                              stream ? el('code', {}, 'POST /api/v1/import/babelstream') : ''));
            return;
        }
        const size = `${doc.size} ${sizeUnit(doc.problem.split('.')[0])}${doc.size_note ? ` (${doc.size_note})` : ''}`;
        body.append(el('p', {class: 'muted'},
                       `${doc.problem}, ${doc.precision}, ${size}; ${EFFICIENCY[doc.efficiency] || doc.efficiency}`));
        if (doc.note)
            body.append(el('p', {class: 'note'}, doc.note));
        cascade(ctx, body, doc, names);
        body.append(el('h2', {}, 'PP table'), ppTable(doc), el('h2', {}, 'Platforms'), peaks(doc));
    }

    form.addEventListener('change', () => {
        f.problem = form.querySelector('[name="problem"]').value;
        f.efficiency = form.querySelector('[name="efficiency"]:checked').value;
        f.precision = form.querySelector('[name="precision"]').value;
        f.platforms = [...form.querySelectorAll('[name="platform"]:checked')].map((i) => i.value);
        setQuery('portability', filterValues(f));
        load();
    });
    await load();
}
