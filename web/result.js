// result: one result's whole provenance (GET /api/v1/results/{id}): what was measured (problem, variant),
// the figures and the statistics of the timed samples, its noise (the statistic judged, in words, its value and
// limit), cv and max/min, the run of its job it came from (`attempt`; superseded by a later run's, or the job's
// current run), every run's result of its kernel when the job was repeated (`attempts`), its flags and an
// admin's note, the platform and host,
// the job and its parameters, and everything the worker recorded (compiler, flags, driver and runtime versions,
// clocks, environment). An admin may annotate it, exclude it from analysis (PATCH) or delete it (DELETE).
// #/result/42. Every results table and chart point links here.
import {api, badge, el, empty, errorBox, fact, flagBadges, gbs, gflopsText, launchText, link, noiseText, num, pageHref, paramsText, resultLink,
        problemText, variantText, when, suites, figureLabel, figureValue} from './ui.js';

// A value the worker sent as null is unknown to it: said in words, never as "null" ("peak unknown" for a peak).
const unknownText = (key) => (/peak/.test(key) ? 'peak unknown' : 'unknown');

// The provenance object flattened into rows: "backend.openmp.threads" -> 16, in the order the worker wrote; an
// array of objects row by row ("platform.devices[0].name"), an array of plain values on one row.
function flatten(obj, prefix = '', out = []) {
    for (const [k, v] of Object.entries(obj || {})) {
        const key = prefix ? `${prefix}.${k}` : k;
        if (Array.isArray(v) && v.some((x) => x && typeof x === 'object'))
            v.forEach((x, i) => (x && typeof x === 'object' ? flatten(x, `${key}[${i}]`, out)
                                                            : out.push([`${key}[${i}]`, String(x)])));
        else if (v && typeof v === 'object' && !Array.isArray(v))
            flatten(v, key, out);
        else
            out.push([key, v === null || v === undefined ? unknownText(key) : Array.isArray(v) ? v.join(', ') : String(v)]);
    }
    return out;
}

// The timed samples' statistics that were stored (an import keeps min, mean and max only).
function samplesText(r, s) {
    const parts = [['min', s.min], ['median', s.median], ['mean', s.mean], ['max', s.max], ['stddev', s.stddev]]
        .filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k} ${num(v)} s`).join(', ');
    if (r.origin === 'import')
        return `none stored (an import keeps its table's times only): ${parts || 'no times'}`;
    return `${s.count ?? ''}: ${parts}`;
}

function adminForm(r, onDone) {
    const note = el('textarea', {id: 'result-note', rows: 2, cols: 60, placeholder: 'a note (admin)'}, r.note || '');
    const exclude = el('input', {type: 'checkbox', id: 'result-exclude',
                                 checked: (r.flags || []).includes('excluded')});
    const msg = el('div');
    const save = el('button', {type: 'submit', id: 'result-save'}, 'Save note');
    const del = el('button', {type: 'button', id: 'result-delete', class: 'danger'}, 'Delete result');
    const form = el('form', {class: 'admin', id: 'result-admin'},
                    el('h2', {}, 'Annotate (admin)'), note,
                    el('label', {class: 'check'}, exclude, ' exclude from analysis (efficiencies, bests, PP)'),
                    el('div', {class: 'actions'}, save, ' ', del), msg);
    form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        msg.replaceChildren();
        try {
            await api(`/api/v1/results/${r.id}`, {method: 'PATCH', auth: true,
                                                  body: {note: note.value.trim() || null, exclude: exclude.checked}});
            onDone();
        } catch (e) {
            msg.replaceChildren(errorBox(e, 'not saved'));
        }
    });
    del.addEventListener('click', async () => {
        if (!confirm(`Delete result ${r.id}? It cannot be undone.`))
            return;
        msg.replaceChildren();
        try {
            await api(`/api/v1/results/${r.id}`, {method: 'DELETE', auth: true});
            location.hash = r.job_id ? `#/job/${r.job_id}` : '#/results';
        } catch (e) {
            msg.replaceChildren(errorBox(e, 'not deleted'));
        }
    });
    return form;
}

export async function render(root, route, ctx) {
    const id = route.arg || route.query.get('id');
    if (!/^\d+$/.test(id || '')) {
        root.append(el('h1', {}, 'Result'), empty('no result id in the link: open one from ',
                                                  link('#/results', 'Results')));
        return;
    }
    const [r, catalog] = await Promise.all([api(`/api/v1/results/${id}`), suites()]);
    if (ctx.left)
        return;
    const suite = catalog.suites.find((s) => s.name === r.suite) || {};
    const p = r.provenance || {};
    const pl = r.platform_info || {};
    const s = r.stats_s || {};
    const figure = figureValue(suite.figure, r);
    root.append(el('h1', {}, `Result #${r.id} `, r.verified ? badge('succeeded') : badge('failed'), ' ',
                   flagBadges(r)),
                el('dl', {class: 'facts', id: 'result-facts'},
                   fact('problem', `${r.suite}.${r.kernel}, ${problemText(r)}`),
                   fact('variant', el('span', {id: 'result-variant'}, variantText(r) || 'none')),
                   launchText(r) ? fact('launch', el('span', {id: 'result-launch'}, launchText(r))) : '',
                   fact('model', r.model),
                   fact('platform', link(pageHref('platform', {id: r.platform, suite: r.suite, kernel: r.kernel}),
                                         r.platform),
                        ` ${pl.name || ''}${pl.host ? ` on ${pl.host}` : ''}`,
                        pl.origin === 'import' ? ' (imported)' : ''),
                   fact('job', r.job_id ? link(`#/job/${r.job_id}`, `#${r.job_id}`) : 'imported (no job)',
                        r.job && r.job.tags && r.job.tags.length ? ` tags ${r.job.tags.join(', ')}` : ''),
                   fact('stored', when(r.created_at)),
                   fact(figureLabel(suite.figure), el('strong', {}, num(figure)),
                        el('small', {class: 'muted'}, ` from the ${r.timing || 'min'} time (the suite's timing rule)`)),
                   fact('bandwidth', `${gbs(r.bandwidth_bytes_per_s)} GB/s (paper's bytes), ` +
                        `${gbs(r.bandwidth_compulsory_bytes_per_s)} GB/s compulsory`),
                   fact('GFLOP/s', gflopsText(r)),
                   fact('timed samples', el('span', {id: 'result-samples'}, samplesText(r, s))),
                   fact('noise', el('span', {id: 'result-noise'},
                                     r.noise ? noiseText(r.noise)
                                             : r.origin === 'import' ? 'not judged: an import has no timed samples'
                                             : 'not recorded (stored before noise was judged)')),
                   fact('spread', el('span', {id: 'result-spread'},
                                     `cv ${r.cv === null || r.cv === undefined ? 'n/a' : `${(100 * r.cv).toFixed(2)} %`}, ` +
                                     `max/min ${num(r.max_min, 4)} (of every timed sample: stored facts, not judged)`)),
                   r.attempt ? fact('run', el('span', {id: 'result-run'}, `run ${r.attempt} of its job`,
                                          r.superseded_by ? el('span', {class: 'reason'},
                                                               `: superseded by run ${r.superseded_by}, whose result ` +
                                                               'counts instead (this one counts nowhere)')
                                                          : ': the job\'s current run'))
                             : null,
                   r.attempts ? fact('attempts', el('span', {id: 'result-attempts'},
                                                    r.attempts.map((a, i) => [i ? ', ' : '', resultLink({id: a}),
                                                                              a === r.id ? ' (this one)' : '']),
                                                    ` (the runs of its job that stored this kernel's result: ` +
                                                    `${r.attempts.length}${r.job ? ` of its ${r.job.attempts}` : ''}; `,
                                                    r.job_id ? link(`#/job/${r.job_id}`, `job #${r.job_id}`) : '', ')'))
                              : null,
                   fact('verified', r.verified ? 'yes' : el('span', {class: 'reason'}, `no: ${r.error || ''}`)),
                   r.note ? fact('note', el('span', {id: 'result-note-text'}, r.note)) : null,
                   fact('compiler', el('code', {id: 'result-compiler'}, p.compiler || 'not recorded')),
                   fact('ppbench', p['ppbench.version'] || 'not recorded'),
                   fact('host', p.host || pl.host || ''),
                   fact('peak of the platform', pl.peak_bandwidth_bytes_per_s
                            ? `${gbs(pl.peak_bandwidth_bytes_per_s)} GB/s (${pl.peak_source || 'no source'})`
                            : 'unknown')));
    if (r.job) {
        root.append(el('h2', {}, 'Job parameters'),
                    el('p', {id: 'result-job'}, el('code', {}, paramsText(r.job.params)),
                       ` (${r.job.state}; this result from run ${r.attempt ?? '?'} of ${r.job.attempts}, ` +
                       `started ${when(r.job.started_at)})`));
    }
    root.append(el('h2', {}, 'Provenance'),
                el('table', {id: 'result-provenance'},
                   el('tbody', {}, flatten(p).map(([k, v]) => el('tr', {}, el('th', {}, k), el('td', {}, v))))));
    if (r.times_s && r.times_s.length)
        root.append(el('h2', {}, 'Sample times (s)'),
                    el('p', {class: 'muted'}, r.times_s.map((t) => num(t)).join(', ')));
    root.append(el('p', {}, el('a', {href: `/api/v1/results/${r.id}`}, 'this result as JSON')),
                adminForm(r, () => window.dispatchEvent(new HashChangeEvent('hashchange'))));
}
