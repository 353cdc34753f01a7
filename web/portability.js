// portability: the cascade plot of paper 003 (Sewall et al., P3HPC 2020) and the PP table for a problem (a
// kernel of any suite: stream.triad, wilson.dslash, staggered.dslash), a precision (default: the suite's), a
// platform set and an efficiency (application or architectural), from
// GET /api/v1/pp?problem=stream.triad&platforms=a,b&efficiency=app|arch&precision=. The figure of merit is the
// bandwidth from the suite's byte model (for a lattice suite at one precision, proportional to its GFLOP/s).
// Per application, its efficiencies sorted from high to low across the platforms (a line that stops early marks
// a platform it does not run on, and PP = 0), with PP, the harmonic mean of the efficiencies, beside it.
// Below, the variant policies of paper 003 Sec. 6 from GET /api/v1/pp/policies (same query): their cascade plot
// (Fig. 12) and the navigation chart (Fig. 13), PP against code convergence (1 - code divergence), one point per
// policy. The platform set is the API's default (every platform with a verified result) until the user picks one;
// the page says which platforms of the fleet it left out and why. Flagged results are left out, as the API leaves
// them out, and the page says what (the answer's `note`, each application's `pp_note` and `hidden`), unless the
// switch includes them (include_flagged=true, sent to GET /api/v1/pp and /pp/policies as is): then each figure of
// the PP table that comes from a flagged result carries its badges (from GET /api/v1/results/{id}, whose noise
// the badges' titles quote: the PP answer's efficiencies name the flags only, so only those are read), and so does
// each of the policies' table (from their efficiencies' flags).
// Runners' results (issue 27: a site's program run as a job, verified by that program, not by ppbench) are left
// out as the API leaves them out, and the page says how many and of which runners (the answer's runners_hidden)
// beside a switch that includes them (include_runners=true, sent to both questions): then each runner is an
// application named by its runner name and marked "runner" (its verified_by "program") in the table and the plots.
// The problem key (size, numtimes, lattice, ...: results of two keys are never compared) is the API's default,
// the key with the most results, until the user picks another in its list (the answer's `keys`, each with its
// results); a size in the link (&size=N) asks both questions at that size (the default key of that size), a key
// (&key=K) at that key.
// #/portability?problem=wilson.dslash&platforms=a,b&efficiency=app&precision=fp32&include_flagged=true&include_runners=true
import {color, api, chart, destroyCharts, el, empty, errorBox, flagBadges, flaggedSwitch, flaggedValue, gbs,
        hiddenLine, includeFlagged, link, num, option, pageHref, plural, problemText, queryString, serverWords, setQuery, sizeText,
        sizeUnit, table, tick, suites} from './ui.js';

const EFFICIENCY = {app: 'application efficiency (of the best achieved on the platform)',
                    arch: 'architectural efficiency (of the platform peak bandwidth)'};

function effs(app) {
    return (app.efficiencies || []).filter((e) => e.efficiency !== null && e.efficiency !== undefined);
}

// The platforms of the set whose peak is unknown (architectural efficiency undefined there).
function noPeak(doc) {
    return doc.platforms.filter((p) => !p.peak_bandwidth_bytes_per_s).map((p) => p.id);
}

// PP as text: the number, or why there is none ("n/a: peak of vm/cpu0 unknown").
function ppText(doc, a) {
    if (a.pp !== null && a.pp !== undefined)
        return num(a.pp, 3);
    const ids = noPeak(doc).filter((id) => (a.efficiencies || []).some((e) => e.platform === id && e.result_id));
    return ids.length ? `n/a: peak of ${ids.join(', ')} unknown` : 'n/a';
}

const STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'];

// The cascade plot: for each application its efficiencies from high to low, position k holding its k-th best
// platform (the x axis names the platforms at each position); PP per application beside it. apps: [{application,
// pp, efficiencies}]; a zero efficiency (an unsupported variant) is drawn at 0.
function cascade(ctx, parent, doc, names, apps, label, flagged = new Map()) {
    const n = doc.platforms.length;
    const sorted = apps.map((a) => effs(a).sort((x, y) => y.efficiency - x.efficiency));
    const top = Math.max(1, ...sorted.flat().map((e) => e.efficiency));
    const max = top > 1 ? undefined : 1; // an architectural efficiency above 1 means a wrong peak: show it
    const kind = doc.efficiency === 'arch' ? 'architectural' : 'application';
    const labels = Array.from({length: n}, (_, k) => {
        const at = [...new Set(sorted.map((s) => s[k] && s[k].platform).filter(Boolean))];
        return [`#${k + 1}`, ...(at.length ? at : ['(none)'])];
    });
    const left = el('div');
    const right = el('div');
    parent.append(el('div', {class: 'cascade', 'data-chart': label}, left, right));
    chart(ctx, left, 380, {
        label: `${label} cascade plot`,
        type: 'line',
        data: {
            labels,
            datasets: apps.map((a, i) => ({
                label: `${a.application} (PP ${ppText(doc, a)})`,
                data: sorted[i].map((e) => e.efficiency),
                borderColor: color(i),
                backgroundColor: 'rgba(0, 0, 0, 0)', // hollow markers: points that coincide stay visible
                pointStyle: STYLES[i % STYLES.length],
                pointRadius: 6 + (i % 3) * 2,
                pointHoverRadius: 10,
                pointBorderWidth: 2,
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
                legend: {labels: {usePointStyle: true}},
                tooltip: {callbacks: {
                    title: (items) => {
                        const e = sorted[items[0].datasetIndex][items[0].dataIndex];
                        return names.get(e.platform) || e.platform;
                    },
                    label: (item) => `${item.dataset.label}: ${num(item.raw, 3)}`,
                    afterLabel: (item) => {
                        const e = sorted[item.datasetIndex][item.dataIndex];
                        if (e.unsupported)
                            return [`unsupported: ${e.unsupported}`];
                        const lines = [`figure ${gbs(e.fom)} GB/s, result ${e.result_id}`];
                        if (e.variant)
                            lines.push(`variant ${e.variant}`);
                        if (flagged.has(e.result_id))
                            lines.push(`flagged: ${flagged.get(e.result_id).flags.join(', ')}`);
                        return lines;
                    },
                }},
            },
        },
    });
    chart(ctx, right, 380, {
        label: `${label} PP per application`,
        type: 'bar',
        data: {
            labels: apps.map((a) => [a.application, `PP ${ppText(doc, a)}`]),
            datasets: [{label: 'PP', data: apps.map((a) => a.pp), minBarLength: 3, // PP 0 still draws a bar
                        backgroundColor: apps.map((_, i) => color(i))}],
        },
        options: {
            scales: {y: {min: 0, max, title: {display: true, text: 'PP (harmonic mean of the efficiencies)'}}},
            plugins: {legend: {display: false},
                      tooltip: {callbacks: {afterLabel: (item) => serverWords(apps[item.dataIndex].pp_note)}}},
        },
    });
}

// The navigation chart (paper 003 Fig. 13): PP against code convergence, one point per policy that has both.
function navigation(ctx, parent, doc) {
    const pols = doc.policies.filter((p) => p.code_convergence !== null && p.pp !== null);
    if (!pols.length)
        return 0; // no empty frame: the note under the heading says why no policy has a point
    const box = el('div', {class: 'navigation'});
    parent.append(box);
    chart(ctx, box, 380, {
        label: 'navigation chart',
        type: 'scatter',
        data: {
            datasets: pols.map((p, i) => ({
                label: `${p.policy} (PP ${num(p.pp, 3)}, convergence ${num(p.code_convergence, 3)})`,
                data: [{x: p.code_convergence, y: p.pp}],
                borderColor: color(i),
                backgroundColor: 'rgba(0, 0, 0, 0)',
                pointStyle: STYLES[i % STYLES.length],
                pointRadius: 7 + (i % 3) * 2,
                pointBorderWidth: 2,
                clip: false,
            })),
        },
        options: {
            scales: {
                x: {min: 0, max: 1, title: {display: true, text: 'code convergence (1 - code divergence)'}},
                y: {min: 0, max: 1, title: {display: true, text: 'PP'}},
            },
            plugins: {legend: {position: 'right', labels: {usePointStyle: true}},
                      tooltip: {callbacks: {afterLabel: (item) => serverWords(pols[item.datasetIndex].pp_note)}}},
        },
    });
    return pols.length;
}

function policyTable(doc) {
    const on = Boolean(doc.include_flagged);
    const plats = doc.platforms;
    return table(['policy', 'PP', 'code divergence', 'convergence', ...plats.map((p) => p.id), 'note'],
                 doc.policies.map((p) => {
                     const by = new Map((p.efficiencies || []).map((e) => [e.platform, e]));
                     return [p.policy, el('strong', {}, ppText(doc, p)), num(p.code_divergence, 3),
                             num(p.code_convergence, 3),
                             ...plats.map((h) => {
                                 const e = by.get(h.id);
                                 if (e && e.unsupported && !e.result_id)
                                     return el('span', {class: 'muted', title: e.unsupported}, '0 (unsupported)');
                                 if (!e || !e.result_id)
                                     return el('span', {class: 'muted', title: 'no figure here (the note says why): PP is 0'},
                                               'none');
                                 return el('span', {title: `${gbs(e.fom)} GB/s`},
                                           `${num(e.efficiency, 3)} ${e.model} ${e.variant}`,
                                           on && (e.flags || []).length ? [' ', flagBadges(e)] : '');
                             }),
                             serverWords([p.pp_note, p.divergence_note && `divergence ${p.divergence_note}`]
                                 .filter(Boolean).join('; '))];
                 }));
}

// flagged: the flagged results among the table's figures, by id (their documents), when flagged ones count.
function ppTable(doc, flagged) {
    const plats = doc.platforms;
    return table(['application', 'model', 'variant policy', 'PP', ...plats.map((p) => p.id), 'note'],
                 doc.applications.map((a) => {
                     const by = new Map((a.efficiencies || []).map((e) => [e.platform, e]));
                     const name = a.verified_by === 'program'
                         ? [a.application, ' ', el('span', {class: 'badge runner', title: 'verified by its program, not by ppbench'}, 'runner')]
                         : a.application;
                     return [el('span', {class: 'app-name'}, name), a.model, a.variant_policy, el('strong', {class: 'pp'}, ppText(doc, a)),
                             ...plats.map((p) => {
                                 const e = by.get(p.id);
                                 if (!e || !e.result_id)
                                     return el('span', {class: 'muted', title: 'no figure here (the note says why): PP is 0'},
                                               'none');
                                 const r = flagged.get(e.result_id);
                                 const marks = r ? [' ', flagBadges(r)] : '';
                                 if (e.efficiency === null || e.efficiency === undefined)
                                     return el('span', {class: 'muted', title: `${gbs(e.fom)} GB/s`},
                                               `n/a: peak of ${p.id} unknown`, marks);
                                 const title = `${gbs(e.fom)} GB/s${e.variant ? `, variant ${e.variant}` : ''}`;
                                 return el('span', {title, 'data-result': e.result_id}, num(e.efficiency, 3), marks);
                             }),
                             el('span', {class: 'pp-note'}, serverWords(a.pp_note))];
                 }));
}

function peaks(doc) {
    return table(['platform', 'name', 'peak GB/s', 'peak source'],
                 doc.platforms.map((p) => [link(pageHref('platform', {id: p.id}), p.id), p.name || '',
                                           p.peak_bandwidth_bytes_per_s ? gbs(p.peak_bandwidth_bytes_per_s) : 'unknown',
                                           p.peak_source || '']));
}

// The page's filters as the API's query (GET /api/v1/pp and /pp/policies alike) and the page's link.
function filterValues(f) {
    return {problem: f.problem, platforms: f.platforms ? f.platforms.join(',') : '', efficiency: f.efficiency,
            precision: f.precision, size: f.size, key: f.key, include_flagged: flaggedValue(f.flagged),
            include_runners: f.runners ? 'true' : ''};
}

// The problem key's choices: the default (the key with the most results, named), then every key of the problem
// and precision by size, each in words with its results ("33554432 elements, numtimes 100: 11 results, 2 more
// flagged"); the one asked is selected.
function keyOptions(doc, asked) {
    const suite = doc.problem.split('.')[0];
    const words = (k) => [sizeText({suite, size: k.size}), problemText({problem_key: k.key}, true)].filter(Boolean)
        .join(', ');
    const count = (k) => `${plural(k.results, 'result')}` +
                         (k.results_all > k.results ? `, ${k.results_all - k.results} more flagged` : '');
    const keys = doc.keys || [];
    const chosen = keys.find((k) => k.key === doc.problem_key);
    const unknown = asked && !keys.some((k) => k.key === asked) ? [option(asked, `${asked}: no verified result`, true)] : [];
    return [option('', `the one with the most results${!asked && chosen ? `: ${words(chosen)}` : ''}`, !asked),
            ...keys.map((k) => option(k.key, `${words(k)}: ${count(k)}`, asked === k.key)), ...unknown];
}

// An application's name as the page shows it: a runner's is marked (its figures are its program's verdict).
function appName(a) {
    return a.verified_by === 'program' ? `${a.application} (runner)` : a.application;
}

function runnersSwitch(on) {
    return el('fieldset', {class: 'filter runners-switch'},
              tick('checkbox', 'include_runners', 'true', on, "include runners (a site's programs, verified by themselves)"));
}

// What include_runners=false left out (the answer's runners_hidden), with the switch as its action.
function runnersLine(hidden, form) {
    if (!hidden || !hidden.results)
        return '';
    const include = el('button', {type: 'button', class: 'include-runners'}, 'include them');
    include.addEventListener('click', () => {
        const box = form.querySelector('[name="include_runners"]');
        box.checked = true;
        box.dispatchEvent(new Event('change', {bubbles: true}));
    });
    const n = hidden.results;
    return el('p', {class: 'note', id: 'pp-runners-hidden'},
              `left out: ${n} result${n === 1 ? '' : 's'} of runners (${hidden.models.join(', ')}): ${serverWords(hidden.reason)}: `,
              include);
}

// The flagged results among the answer's figures, by id (their documents, whose noise the badges' titles
// quote): none unless flagged ones count. Only the figures whose efficiency names a flag are read.
async function flaggedFigures(doc) {
    if (!doc.include_flagged)
        return new Map();
    const ids = [...new Set(doc.applications.flatMap((a) => (a.efficiencies || [])
        .filter((e) => e.result_id && (e.flags || []).length).map((e) => e.result_id)))];
    const docs = await Promise.all(ids.map((id) => api(`/api/v1/results/${id}`)));
    return new Map(docs.filter((r) => (r.flags || []).length).map((r) => [r.id, r]));
}

export async function render(root, route, ctx) {
    const q = route.query;
    const [catalog, plats] = await Promise.all([suites(), api('/api/v1/platforms')]);
    const problems = catalog.suites.flatMap((s) => s.kernels.map((k) => `${s.name}.${k}`));
    const all = plats.platforms.map((p) => p.id);
    const names = new Map(plats.platforms.map((p) => [p.id, `${p.id} (${p.name})`]));
    const f = {problem: q.get('problem') || (problems.includes('stream.triad') ? 'stream.triad' : problems[0]),
               // null: the API's default set (every platform with a verified result for the problem)
               platforms: q.get('platforms') ? q.get('platforms').split(',').filter(Boolean) : null,
               efficiency: q.get('efficiency') === 'arch' ? 'arch' : 'app',
               precision: ['fp32', 'fp64'].includes(q.get('precision')) ? q.get('precision') : '',
               flagged: includeFlagged(q), runners: q.get('include_runners') === 'true',
               size: /^[1-9][0-9]*$/.test(q.get('size') || '') ? q.get('size') : '', key: q.get('key') || ''};
    root.append(el('h1', {}, 'Performance portability'));
    if (!all.length) {
        root.append(empty('no platforms yet: start workers (see ', link('#/fleet', 'Fleet'), ') and run jobs on them'));
        return;
    }
    // the answer's keys fill it (keyOptions); until then only the key asked or the default
    const keySelect = el('select', {name: 'key', id: 'pp-key'}, option(f.key, f.key || 'the one with the most results', true));
    const form = el('form', {class: 'filters'},
                    el('label', {class: 'filter'}, 'problem',
                       el('select', {name: 'problem'}, problems.map((p) => option(p, p, p === f.problem)))),
                    el('label', {class: 'filter'}, 'problem key', keySelect),
                    el('label', {class: 'filter'}, 'precision',
                       el('select', {name: 'precision'}, option('', "the suite's default", !f.precision),
                          ['fp64', 'fp32'].map((p) => option(p, p, p === f.precision)))),
                    el('fieldset', {class: 'filter'}, el('legend', {}, 'efficiency'),
                       Object.keys(EFFICIENCY).map((k) => tick('radio', 'efficiency', k, k === f.efficiency, k))),
                    el('fieldset', {class: 'filter'}, el('legend', {}, 'platform set'),
                       all.map((id) => tick('checkbox', 'platform', id, !f.platforms || f.platforms.includes(id),
                                            names.get(id)))),
                    flaggedSwitch(f.flagged), runnersSwitch(f.runners));
    const body = el('div');
    root.append(form, body);

    let loads = 0; // a slower earlier answer must not overwrite a later one
    async function load() {
        const seq = ++loads;
        if (f.platforms && !f.platforms.length) {
            destroyCharts(body);
            body.replaceChildren(empty('choose at least one platform'));
            return;
        }
        const values = filterValues(f);
        let doc, pols, flagged;
        try {
            [doc, pols] = await Promise.all([api(`/api/v1/pp${queryString(values)}`),
                                             api(`/api/v1/pp/policies${queryString(values)}`)]);
            flagged = await flaggedFigures(doc);
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
        keySelect.replaceChildren(...keyOptions(doc, f.key));
        // The set the answer is over: the boxes show it, and the page says what it left out and why.
        const inSet = new Set(doc.platforms.map((p) => p.id));
        for (const box of form.querySelectorAll('[name="platform"]'))
            box.checked = inSet.has(box.value);
        const out = all.filter((id) => !inSet.has(id));
        // The server's words for what is missing (never the page's own): the answer's note, then what the flags
        // kept out with the switch as its action.
        if (doc.note)
            body.append(el('p', {class: 'note', id: 'pp-note'}, serverWords(doc.note)));
        body.append(hiddenLine(doc.hidden, form) || '', runnersLine(doc.runners_hidden, form));
        if (doc.include_runners && doc.applications.some((a) => a.verified_by === 'program'))
            body.append(el('p', {class: 'note', id: 'pp-runners'}, 'runners count here (the switch): ',
                           doc.applications.filter((a) => a.verified_by === 'program').map((a) => a.model).join(', '),
                           ", each an application of its own, verified by its program, not by ppbench"));
        const allFlagged = !doc.applications.length && doc.hidden && doc.hidden.results;
        if (out.length && !allFlagged) { // all flagged: the note and the line above say it, once
            const of = doc.problem_key ? `of problem key ${doc.problem_key}`
                : `of ${doc.problem} in ${doc.precision}${f.size ? ` at size ${f.size}` : ''}`;
            body.append(el('p', {class: 'note', id: 'pp-left-out'},
                           `left out: ${out.join(', ')} (${f.platforms ? 'not chosen' :
                               `no ${doc.include_flagged ? '' : 'unflagged '}verified result ${of}`})`));
        }
        if (allFlagged) {
            // the results are there, flagged: the line above says which and includes them, no new job is needed
            body.append(empty('nothing to compare among unflagged results: the line above says what was left out'));
            return;
        }
        if (!doc.applications.length) {
            const stream = f.problem.startsWith('stream.');
            body.append(empty('nothing to compare: ', link('#/submit', 'run jobs'),
                              ' with several models', stream ? ', or import BabelStream output with ' : '',
                              stream ? el('code', {}, 'POST /api/v1/import/babelstream') : ''));
            return;
        }
        // the problem in words, every parameter of its key (two numtimes of one size are two problems)
        const words = doc.problem_key
            ? problemText({suite: doc.problem.split('.')[0], precision: doc.precision, size: doc.size,
                           problem_key: doc.problem_key})
            : `${doc.precision}, ${doc.size} ${sizeUnit(doc.problem.split('.')[0])}`;
        body.append(el('p', {class: 'muted', id: 'pp-problem'},
                       `${doc.problem}, ${words}${doc.size_note ? ` (${doc.size_note})` : ''}; ` +
                       `${EFFICIENCY[doc.efficiency] || doc.efficiency}`));
        if (doc.include_flagged)
            body.append(el('p', {class: 'note', id: 'pp-flagged'}, 'flagged results count here (the switch): ',
                           flagged.size ? `${flagged.size} of the table's figures ${flagged.size === 1 ? 'comes' : 'come'} ` +
                                          'from flagged results, marked with their flags' : 'none of the figures is flagged'));
        cascade(ctx, body, doc, names, doc.applications.map((a) => ({...a, application: appName(a)})), 'models', flagged);
        body.append(el('h2', {}, 'PP table'), ppTable(doc, flagged));
        // the switch reaches the policies too: the same results count there, the flagged ones marked
        const polFlagged = new Map(pols.policies.flatMap((p) => (p.efficiencies || []))
            .filter((e) => e.result_id && (e.flags || []).length).map((e) => [e.result_id, e]));
        body.append(el('h2', {}, 'Variant policies'),
                    el('p', {class: 'muted', id: 'policies-flagged'},
                       'per model: the best variant per platform and each variant everywhere ',
                       '(paper 003 Sec. 6); code divergence over the source lines each variant compiles; ',
                       pols.include_flagged ? `flagged results count here (the switch): ${polFlagged.size ?
                           `${polFlagged.size} of the policies' figures come from flagged results, marked with their flags`
                           : 'none of the figures is flagged'}`
                                            : `over unflagged results only${pols.hidden ? ` (${plural(pols.hidden.results,
                                                'flagged result')} left out: the switch counts them)` : ''}`));
        if (!pols.policies.length) {
            body.append(empty(`no variant policy: no ${pols.include_flagged ? '' : 'unflagged '}verified result here`),
                        el('h2', {}, 'Platforms'), peaks(doc));
            return;
        }
        const apps = pols.policies.map((p) => ({...p, application: p.policy}));
        cascade(ctx, body, pols, names, apps, 'policies', polFlagged);
        body.append(el('h3', {}, 'Navigation chart'));
        const drawn = navigation(ctx, body, pols);
        if (drawn < pols.policies.length)
            body.append(el('p', {class: 'note', id: 'navigation-note'}, `${pols.policies.length - drawn} of ${pols.policies.length} `,
                           'policies have no point: ',
                           [...new Set(pols.policies.filter((p) => p.code_convergence === null || p.pp === null)
                               .map((p) => serverWords(p.divergence_note || p.pp_note) || 'undefined'))].join('; ')));
        body.append(policyTable(pols), el('h2', {}, 'Platforms'), peaks(doc));
    }

    form.addEventListener('change', (ev) => {
        f.problem = form.querySelector('[name="problem"]').value;
        f.efficiency = form.querySelector('[name="efficiency"]:checked').value;
        f.precision = form.querySelector('[name="precision"]').value;
        // a key (or a size) is one problem's and precision's: another problem or precision asks for its default
        if (ev.target.name === 'problem' || ev.target.name === 'precision')
            f.key = f.size = '';
        else if (ev.target.name === 'key')
            [f.key, f.size] = [ev.target.value, ''];
        // The boxes show the answer's set: ticking one makes the set the user's; another filter keeps the API's
        // default set (null), which for another problem, or with flagged results, may be another set.
        if (ev.target.name === 'platform')
            f.platforms = [...form.querySelectorAll('[name="platform"]:checked')].map((i) => i.value);
        f.flagged = form.querySelector('[name="include_flagged"]').checked;
        f.runners = form.querySelector('[name="include_runners"]').checked;
        setQuery('portability', filterValues(f));
        load();
    });
    await load();
}
