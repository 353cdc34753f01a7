// submit: a job form built from what the API serves: suites (stream, and the lattice suites wilson and
// staggered), kernels and their parameters (type, min, max, default, choices, optional) from GET /api/v1/suites,
// platforms and the models each runs from GET /api/v1/platforms.
// The browser does not validate: POST /api/v1/jobs does, and its 422 message is shown next to the field it
// names (error.field). The token saved in the header authorises the request. #/submit?platform=&model=&suite=
// preselects. A sweep (one job per value of one parameter, "2^20..2^28", "20..100:20" or "20,40,80", expanded by
// the server) leaves the form for the sweep's jobs; the Scaling page draws them. Platforms without a worker
// (imports, Slurm nodes not yet registered) offer no model: they come last, marked, and are never the default.
// A platform's runners (issue 27: a site's programs its worker registered, GET /api/v1/platforms' runners) are
// offered as models for their suite, marked as runners, with only the kernels each measures; the job names the
// runner and nothing else (the program and its arguments stay on the worker's host).
import {ApiError, api, el, empty, errorBox, link, option, pageHref, setQuery, tick, suites} from './ui.js';

const ANY = {'any:cpu': {kind: 'cpu'}, 'any:gpu': {kind: 'gpu'}};

function field(name, label, input, help) {
    return el('div', {class: 'field', 'data-field': name}, el('label', {}, label), input,
              help ? el('small', {class: 'help'}, help) : null, el('span', {class: 'field-error', role: 'alert'}));
}

// One parameter's input, as the catalogue describes it, for the model chosen: a choice the model does not offer
// (the catalogue's choice_models, e.g. the aosoa layout or the GPU strategies on openmp) is not listed, nor is it
// in the help, which names the offered choices in the catalogue's words (choice_help) after the description. An
// optional parameter (no default: the worker decides, e.g. the device's lattice or the model's strategy) starts
// empty and is left out of the job when it stays so.
export function paramInput(p, model) {
    const name = `params.${p.name}`;
    if (p.choices) {
        const blank = p.optional ? [option('', 'default (the worker decides)', true)] : [];
        const offered = p.choices.filter((c) => !p.choice_models || !model || (p.choice_models[c] || []).includes(model));
        const help = p.choice_help ? `${p.description}: ${offered.map((c) => `${c} (${p.choice_help[c]})`).join(', ')}`
                                   : p.description;
        return field(name, p.name,
                     el('select', {name}, blank, offered.map((c) => option(c, c, !p.optional && c === p.default))),
                     help);
    }
    if (p.type === 'string') {
        const placeholder = p.format === 'lattice' ? '8x8x8x16' : '';
        return field(name, p.name, el('input', {name, type: 'text', placeholder}), p.description);
    }
    const range = `${p.min} to ${p.max}, ${p.optional ? 'empty: the default' : `default ${p.default}`}`;
    return field(name, p.name, integerInput(name, p.optional ? '' : p.default), `${p.description} (${range})`);
}

// A parameter's value from its input: undefined (left out of the job) when empty.
export function paramValue(p, input) {
    if (p.type === 'integer')
        return numberValue(input);
    if (p.type === 'number') {
        const raw = input.value.trim();
        return raw === '' ? undefined : (Number.isFinite(Number(raw)) ? Number(raw) : raw);
    }
    const v = input.value.trim();
    return v === '' ? undefined : v;
}

// Integers are typed in text boxes: a number box would hand over "" for "12x", and the API would then use the
// default without a word. The text goes to the API as typed unless it is an integer or a power of two "2^k" (as
// the CLI and the sweep field take it, lib/sweep.h), so the API names the fault.
function integerInput(name, value) {
    return el('input', {name, type: 'text', inputmode: 'numeric', value});
}

function numberValue(input) {
    const raw = input.value.trim();
    if (raw === '')
        return undefined;
    const pow = /^2\^(\d+)$/.exec(raw);
    if (pow && Number(pow[1]) <= 53) // exact as a JavaScript number
        return 2 ** Number(pow[1]);
    return /^-?\d+$/.test(raw) ? Number(raw) : raw;
}

export async function render(root, route, ctx) {
    const [catalog, plats] = await Promise.all([suites(), api('/api/v1/platforms')]);
    const platforms = plats.platforms;
    const q = route.query;
    root.append(el('h1', {}, 'Submit a job'));
    if (!catalog.suites.length) {
        root.append(empty('this server offers no suites'));
        return;
    }
    if (!platforms.length) {
        root.append(empty('no platforms yet: start a worker first (see ', link('#/fleet', 'Fleet'), ')'));
        return;
    }

    const suiteSel = el('select', {name: 'suite'}, catalog.suites.map((s) => option(s.name, s.name)));
    const served = (p) => (p.models || []).length > 0;
    const ordered = [...platforms.filter(served), ...platforms.filter((p) => !served(p))];
    const platformSel = el('select', {name: 'platform'},
                           ordered.map((p) => option(p.id, `${p.id} (${p.name})${served(p) ? '' : ': no worker, no model'}`)),
                           option('any:cpu', 'any CPU platform'), option('any:gpu', 'any GPU platform'));
    const sweepParam = el('select', {name: 'sweep.param'});
    const sweepBox = field('sweep.values', 'sweep',
                           el('span', {class: 'sweep'}, sweepParam,
                              el('input', {name: 'sweep.values', type: 'text', placeholder: '2^20..2^28'})),
                           'one job per value of a parameter (at most 64): 2^20..2^28 (each power of two), ' +
                           '20..100:20 (a step) or 20,40,80 (a list); the Scaling page draws them');
    const modelSel = el('select', {name: 'model'});
    const kernelsBox = el('div', {class: 'checks'});
    const paramsBox = el('div');
    const advanced = el('details', {}, el('summary', {}, 'priority, timeout, attempts, tags'),
                        field('priority', 'priority', integerInput('priority', 0), '-1000 to 1000, higher first'),
                        field('timeout_s', 'timeout (s)', integerInput('timeout_s', 600), '1 to 86400'),
                        field('max_attempts', 'max attempts', integerInput('max_attempts', 3), '1 to 100'),
                        field('tags', 'tags', el('input', {name: 'tags', type: 'text', placeholder: 'nightly, h100'}),
                              'comma-separated'));
    const status = el('div', {class: 'form-status'});
    const form = el('form', {class: 'job-form', novalidate: true},
                    field('suite', 'suite', suiteSel),
                    field('platform', 'platform', platformSel),
                    field('model', 'model', modelSel,
                          "the models the platform runs, and its runners (a site's programs, verified by themselves)"),
                    field('kernels', 'kernels', kernelsBox),
                    paramsBox, sweepBox, advanced,
                    el('div', {class: 'actions'}, el('button', {type: 'submit', id: 'submit-job'}, 'Submit'), status));
    root.append(form);

    if (q.get('suite'))
        suiteSel.value = q.get('suite');
    if (q.get('platform'))
        platformSel.value = q.get('platform');

    function suite() {
        return catalog.suites.find((s) => s.name === suiteSel.value) || catalog.suites[0];
    }

    // The runners the chosen platform offers for the chosen suite.
    function runners() {
        const p = platforms.find((x) => x.id === platformSel.value);
        return ((p && p.runners) || []).filter((r) => r.suite === suite().name);
    }

    function fillModels(want) {
        const p = platforms.find((x) => x.id === platformSel.value);
        const models = p ? catalog.models.filter((m) => p.models.includes(m)) : catalog.models;
        const own = runners();
        modelSel.replaceChildren(...models.map((m) => option(m, m)),
                                 ...own.map((r) => option(r.name, `${r.name} (runner: ${r.program})`)));
        if (want && [...models, ...own.map((r) => r.name)].includes(want))
            modelSel.value = want;
    }

    // The suite's kernels and parameters for the model chosen. Another model or platform of the same suite keeps
    // what was typed and ticked where the new form has it (issue 25: a model change reset arraysize and
    // numtimes to their defaults without a word, and the job ran at the default size).
    let shownSuite = null;
    function fillSuite() {
        const s = suite();
        const runner = runners().find((r) => r.name === modelSel.value);
        const typed = s.name === shownSuite
            ? [...paramsBox.querySelectorAll('input, select')].map((i) => [i.name, i.value]) : [];
        const unticked = s.name === shownSuite
            ? new Set([...kernelsBox.querySelectorAll('input:not(:checked)')].map((i) => i.value)) : new Set();
        kernelsBox.replaceChildren(...s.kernels.filter((k) => !runner || runner.kernels.includes(k))
            .map((k) => tick('checkbox', 'kernel', k, !unticked.has(k), k)));
        paramsBox.replaceChildren(...s.params.map((p) => paramInput(p, modelSel.value)));
        for (const [name, value] of typed) {
            const input = paramsBox.querySelector(`[name="${name}"]`);
            if (input && (input.tagName !== 'SELECT' || [...input.options].some((o) => o.value === value)))
                input.value = value;
        }
        shownSuite = s.name;
        const was = sweepParam.value;
        sweepParam.replaceChildren(option('', 'no sweep', true),
                                   ...s.params.map((p) => option(p.name, p.name, p.name === was)));
    }

    function remember() {
        setQuery('submit', {suite: suiteSel.value, platform: platformSel.value, model: modelSel.value});
    }

    suiteSel.addEventListener('change', () => (fillModels(modelSel.value), fillSuite(), remember()));
    platformSel.addEventListener('change', () => (fillModels(modelSel.value), fillSuite(), remember()));
    modelSel.addEventListener('change', () => (fillSuite(), remember()));
    fillModels(q.get('model'));
    fillSuite();

    function clearErrors() {
        status.replaceChildren();
        for (const f of form.querySelectorAll('.field')) {
            f.classList.remove('invalid');
            f.querySelector('.field-error').textContent = '';
        }
    }

    // Show an API error next to the field it names ("params.arraysize", "kernels", "selector.kind", ...).
    function showError(err) {
        const name = err instanceof ApiError && err.field ?
            err.field.replace(/^selector\b.*/, 'platform').replace(/^sweep\b.*/, 'sweep.values') : '';
        const fields = [...form.querySelectorAll('.field')];
        const target = fields.find((f) => f.dataset.field === name) ||
                       fields.find((f) => name && name.startsWith(`${f.dataset.field}[`));
        if (target) {
            target.classList.add('invalid');
            target.querySelector('.field-error').textContent = err.message;
            if (target.closest('details'))
                target.closest('details').open = true;
        }
        status.replaceChildren(errorBox(err, 'not submitted'));
    }

    form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        clearErrors();
        const s = suite();
        const job = {suite: s.name, model: modelSel.value, params: {}};
        if (ANY[platformSel.value])
            job.selector = ANY[platformSel.value];
        else
            job.platform = platformSel.value;
        const kernels = [...kernelsBox.querySelectorAll('input:checked')].map((i) => i.value);
        if (kernels.length !== kernelsBox.querySelectorAll('input').length)
            job.kernels = kernels;
        const swept = sweepParam.value;
        for (const p of s.params) {
            const input = form.querySelector(`[name="params.${p.name}"]`);
            const v = paramValue(p, input);
            if (v !== undefined && p.name !== swept)
                job.params[p.name] = v;
        }
        if (swept)
            job.sweep = {param: swept, values: form.querySelector('[name="sweep.values"]').value.trim()};
        for (const name of ['priority', 'timeout_s', 'max_attempts']) {
            const v = numberValue(form.querySelector(`[name="${name}"]`));
            if (v !== undefined)
                job[name] = v;
        }
        const tags = form.querySelector('[name="tags"]').value.split(',').map((t) => t.trim()).filter(Boolean);
        if (tags.length)
            job.tags = tags;
        status.replaceChildren(el('span', {class: 'muted'}, 'submitting…'));
        try {
            const res = await api('/api/v1/jobs', {method: 'POST', body: job, auth: true});
            if (!ctx.left)
                location.hash = res.sweep ? pageHref('jobs', {tag: res.sweep}) : `#/job/${res.id}`;
        } catch (e) {
            showError(e);
        }
    });
}
