// health: the fleet as a grid of devices coloured by state (ok, regressed, outlier, verification failed,
// stale worker, unavailable: a Slurm node down or drained, no baseline yet: never_measured, no baseline holding
// the results judging needs, none stored or all flagged, which its reason says; a Slurm node's state under it), each
// with its reason and a link to the evidence (the Platform page's history of the flagged result's problem with
// its baseline band and the result ringed), the counts by state (each a link to the grid of that state:
// #/health?state=regressed, as the Fleet page's counts link here), and the schedules (create, pause, resume,
// run now, last outcome; each with its job's parameters).
// Refreshed every 10 s. Calls GET /api/v1/health and /api/v1/schedules; POST /api/v1/schedules[/{id}/...]
// and /api/v1/health/clear with the saved (admin) token. Styles are inline: this page owns no CSS.
import {ago, api, badge, el, empty, errorBox, option, pageHref, paramsText, plural, suites, table, tick, when} from './ui.js';
import {paramInput, paramValue} from './submit.js';

const REFRESH_MS = 10000;

const STATES = {
    ok: {label: 'ok', color: '#2e7d32'},
    regressed: {label: 'regressed', color: '#c62828'},
    outlier: {label: 'outlier', color: '#e65100'},
    verification_failed: {label: 'verification failed', color: '#6a1b9a'},
    stale_worker: {label: 'stale worker', color: '#8a6d00'},
    unavailable: {label: 'unavailable (Slurm)', color: '#455a64'},
    never_measured: {label: 'no baseline yet', color: '#8a94a6'},
};

function stateBadge(state) {
    const s = STATES[state] || {label: state, color: '#8a94a6'};
    return el('span', {class: 'badge', style: `background:${s.color}`}, s.label);
}

// The counts by state, each a link to the devices of that state (the chosen one again: all of them). Also
// the Fleet page's summary of health.
export function healthCounts(counts, chosen) {
    return el('div', {class: 'cards health-counts'}, Object.keys(STATES).map((k) =>
        el('a', {href: pageHref('health', {state: k === chosen ? '' : k}), class: 'card-link', 'data-state': k},
           el('div', {class: 'card', 'data-state': k, 'aria-current': k === chosen ? 'true' : null,
                      style: `border-left:6px solid ${STATES[k].color}` +
                             (k === chosen ? `;outline:2px solid ${STATES[k].color}` : '')},
              el('div', {class: 'value'}, String(counts[k] || 0)), el('div', {class: 'label'}, STATES[k].label)))));
}

function tile(p, onClear) {
    const s = STATES[p.state] || STATES.never_measured;
    const attention = ['regressed', 'outlier', 'verification_failed'].includes(p.state);
    return el('div', {class: 'device', 'data-platform': p.id, 'data-state': p.state,
                      style: `border:1px solid var(--line);border-top:6px solid ${s.color};border-radius:6px;` +
                             'background:var(--card);padding:8px 10px;min-width:220px;max-width:340px;flex:1 1 240px'},
              el('div', {style: 'display:flex;justify-content:space-between;gap:8px'},
                 el('a', {href: pageHref('platform', {id: p.id}), style: 'font-weight:600'}, p.id), stateBadge(p.state)),
              el('div', {style: 'color:var(--muted);font-size:12px'}, `${p.name} · ${p.kind}${p.host ? ` · ${p.host}` : ''}`),
              p.slurm ? el('div', {class: 'slurm', style: 'font-size:12px'}, `slurm: ${p.slurm.state}`,
                           p.slurm.reason && p.state !== 'unavailable' ? ` (${p.slurm.reason})` : '') : null,
              p.reason && p.state !== 'ok' ? el('div', {class: 'reason', style: 'font-size:12px;margin-top:4px'}, p.reason) : null,
              el('div', {style: 'font-size:12px;margin-top:4px;display:flex;gap:10px'},
                 p.result_id ? el('a', {href: pageHref('platform', {id: p.id, result: p.result_id}), class: 'evidence'},
                                   'evidence') : null,
                 p.since && attention ? el('span', {style: 'color:var(--muted)'}, `since ${ago(p.since)}`) : null,
                 attention ? el('button', {type: 'button', onclick: () => onClear(p.id)}, 'clear') : null));
}

function scheduleRows(list, act) {
    return table(['schedule', 'spec', 'job', 'parameters', 'selector', 'next', 'last', 'outcome', ''],
                 list.map((s) => [
                     s.name, el('code', {}, s.spec), `${s.suite} ${s.model} ${(s.kernels || []).join(',')}`,
                     el('code', {class: 'schedule-params'}, paramsText(s.params)),
                     Object.entries(s.selector || {}).map(([k, v]) => `${k}=${v}`).join(' ') || 'every platform',
                     s.paused ? 'paused' : when(s.due_at),
                     s.last ? `${ago(s.last.fired_at)}: ${plural(s.last.jobs.length, 'job')}` : 'never',
                     s.last ? (['succeeded', 'failed', 'running'].includes(s.last.outcome) ? badge(s.last.outcome)
                                                                                           : el('span', {class: 'reason'}, s.last.outcome))
                            : '',
                     el('span', {style: 'display:flex;gap:6px'},
                        el('button', {type: 'button', onclick: () => act(s.id, s.paused ? 'resume' : 'pause')},
                           s.paused ? 'resume' : 'pause'),
                        el('button', {type: 'button', onclick: () => act(s.id, 'run')}, 'run now')),
                 ]));
}

// The form of a new schedule: the suite, model and kind offered as choices, the suite's kernels as ticks and its
// parameters as the Submit page takes them (the catalogue, GET /api/v1/suites); the API checks what is sent.
function scheduleForm(catalog, onCreate) {
    const suiteSel = el('select', {name: 'suite'}, catalog.suites.map((x) => option(x.name, x.name)));
    const modelSel = el('select', {name: 'model'}, catalog.models.map((m) => option(m, m)));
    const kernels = el('span', {class: 'checks', id: 'schedule-kernels'});
    const params = el('div', {id: 'schedule-params'});
    const f = el('form', {class: 'job-form', id: 'schedule-form'},
                 el('div', {style: 'display:flex;flex-wrap:wrap;gap:8px;align-items:end'},
                    el('label', {}, 'name', el('br'), el('input', {name: 'name', placeholder: 'nightly-gpus', size: 14})),
                    el('label', {}, 'spec (cron, UTC)', el('br'),
                       el('input', {name: 'spec', placeholder: '30 2 * * *', size: 12})),
                    el('label', {}, 'suite', el('br'), suiteSel), el('label', {}, 'model', el('br'), modelSel),
                    el('label', {}, 'kind', el('br'),
                       el('select', {name: 'kind'}, option('', 'any'), ['cpu', 'gpu', 'accel'].map((k) => option(k, k)))),
                    el('label', {}, 'host', el('br'), el('input', {name: 'host', placeholder: 'node* (any)', size: 12}))),
                 el('div', {style: 'margin:8px 0'}, 'kernels ', kernels), params,
                 el('button', {type: 'submit'}, 'create'));
    const suite = () => catalog.suites.find((x) => x.name === suiteSel.value) || catalog.suites[0];
    function fill() {
        kernels.replaceChildren(...suite().kernels.map((k) => tick('checkbox', 'kernel', k, true, k)));
        params.replaceChildren(...suite().params.map((p) => paramInput(p, modelSel.value)));
    }
    suiteSel.addEventListener('change', fill);
    modelSel.addEventListener('change', fill);
    fill();
    f.addEventListener('submit', (ev) => {
        ev.preventDefault();
        const v = Object.fromEntries(new FormData(f).entries());
        const s = suite();
        const body = {name: v.name, spec: v.spec, suite: s.name, model: v.model, params: {}};
        const ticked = [...kernels.querySelectorAll('input:checked')].map((i) => i.value);
        if (ticked.length !== s.kernels.length)
            body.kernels = ticked;
        for (const p of s.params) {
            const value = paramValue(p, f.querySelector(`[name="params.${p.name}"]`));
            if (value !== undefined)
                body.params[p.name] = value;
        }
        const selector = {};
        if (v.kind)
            selector.kind = v.kind;
        if (v.host)
            selector.host = v.host;
        if (Object.keys(selector).length)
            body.selector = selector;
        onCreate(body);
    });
    return f;
}

export async function render(root, route, ctx) {
    const chosen = STATES[route.query.get('state')] ? route.query.get('state') : '';
    const grid = el('div', {class: 'grid'});
    const sched = el('div', {});
    const msg = el('div', {});
    root.append(el('h1', {}, 'Health'),
                el('p', {class: 'note'}, 'Each result is judged against its platform\'s baseline and its peers ' +
                   '(same device model and driver); a suspect is confirmed by a repeat before it is raised.'),
                grid, el('h2', {}, 'Schedules'), msg, sched);

    async function act(fn, what) {
        msg.replaceChildren();
        try {
            await fn();
            await refresh();
        } catch (e) {
            msg.replaceChildren(errorBox(e, what));
        }
    }
    const clear = (id) => act(() => api('/api/v1/health/clear', {method: 'POST', body: {platform: id}, auth: true}),
                              `clear ${id}`);
    const scheduleAct = (id, verb) => act(() => api(`/api/v1/schedules/${id}/${verb}`, {method: 'POST', auth: true}),
                                          `${verb} schedule ${id}`);
    const create = (body) => act(() => api('/api/v1/schedules', {method: 'POST', body, auth: true}), 'create');
    const form = scheduleForm(await suites(), create);

    async function refresh() {
        const [doc, schedules] = await Promise.all([api('/api/v1/health'), api('/api/v1/schedules')]);
        if (ctx.left)
            return;
        const rank = ['regressed', 'outlier', 'verification_failed', 'stale_worker', 'unavailable', 'never_measured',
                      'ok'];
        const platforms = doc.platforms.filter((p) => !chosen || p.state === chosen)
            .sort((a, b) => rank.indexOf(a.state) - rank.indexOf(b.state) || a.id.localeCompare(b.id));
        const none = chosen ? empty(`no platform is ${STATES[chosen].label} (`, el('a', {href: pageHref('health')}, 'all'),
                                    ')')
                            : empty('no platforms yet: start a worker (see the Fleet page)');
        grid.replaceChildren(healthCounts(doc.counts, chosen),
                             chosen ? el('p', {class: 'note', id: 'health-filter'}, `only ${STATES[chosen].label}: `,
                                         el('a', {href: pageHref('health')}, 'show all')) : '',
                             el('div', {style: 'height:12px'}),
                             platforms.length ? el('div', {class: 'devices', style: 'display:flex;flex-wrap:wrap;gap:10px'},
                                                   platforms.map((p) => tile(p, clear)))
                                              : none);
        sched.replaceChildren(schedules.schedules.length ? scheduleRows(schedules.schedules, scheduleAct)
                                                         : empty('no schedule yet: create one below (admin token)'),
                              el('h3', {}, 'New schedule'), form);
    }
    try {
        await refresh();
    } catch (e) {
        root.append(errorBox(e));
    }
    const timer = setInterval(() => refresh().catch(() => {}), REFRESH_MS);
    ctx.onLeave(() => clearInterval(timer));
}
