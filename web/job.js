// job: one job, live. GET /api/v1/jobs/{id} for the document, then Server-Sent Events from
// GET /api/v1/jobs/{id}/events (state and progress) until a terminal state, then the results: the problem
// (array size, or lattice and sites) and variant, a table and bars of bandwidth (GFLOP/s for the lattice
// suites), with % of peak where the platform has one (GET /api/v1/platforms). Its repeats for noise and its
// note (why it ran again, or was flagged: docs/API.md) follow the events too; a queued job held back by one
// measurement at a time per host says which running job holds it (waiting), one no live worker serves says so
// (warning). Its runs (attempts) and failures, which alone spend max_attempts, and its history: every time it
// went back to the queue, with the run that ended and why (a repeat for noise, a worker's goodbye, a lost lease:
// docs/API.md, "Runs and failures"), kept apart from the note so a later note hides no earlier one. The results
// are those of the job's current run (its last that reported); the rows of earlier runs, superseded and counted
// nowhere, are listed apart, each run labelled, in a collapsed section. Cancel posts
// /api/v1/jobs/{id}/cancel with the saved token.
import {COLORS, TERMINAL, api, badge, chart, el, empty, errorBox, fact, flagBadges, gbs, flagLegend, gflopsText, link, num, pageHref, paramsText, pct,
        launchText, peakCell, peakFraction, platformsById, resultLink, runsText, problemText, superseded, table, variantText,
        when, suites, figureLabel, figureValue, figureFlops} from './ui.js';

// The statistic a job's rates come from: the job's "timing" parameter where its suite takes one (best: the
// minimum), else the suite's rule (GET /api/v1/suites; kernels/suite.c suite_timing).
function jobTiming(job, suite) {
    const t = (job.params || {}).timing;
    return t === 'best' ? 'min' : t || suite.timing || '';
}

function resultsTable(results, platforms, timing) {
    return table(['result', 'kernel', 'GB/s', '% of peak', 'GFLOP/s', 'timing', 'min s', 'mean s', 'max s',
                  'timed samples', 'flags', 'verified'],
                 results.map((r) => [
                     resultLink(r), r.kernel, gbs(r.bandwidth_bytes_per_s), peakCell(r, platforms),
                     gflopsText(r), r.timing || timing, num(r.stats_s.min), num(r.stats_s.mean), num(r.stats_s.max),
                     String(r.stats_s.count), flagBadges(r),
                     r.verified ? 'yes' : el('span', {class: 'reason'}, `no: ${r.error || ''}`),
                 ]));
}

// Bars per kernel of the suite's figure of merit (GET /api/v1/suites: `figure`; ui.js figureValue).
function resultsChart(ctx, parent, suite, results, platforms) {
    const ok = results.filter((r) => r.verified);
    const flops = figureFlops(suite.figure);
    return chart(ctx, parent, 80 + 36 * ok.length, {
        label: `${figureLabel(suite.figure)} per kernel`,
        type: 'bar',
        data: {
            labels: ok.map((r) => r.kernel),
            datasets: [{label: figureLabel(suite.figure),
                        data: ok.map((r) => figureValue(suite.figure, r)),
                        backgroundColor: COLORS[0]}],
        },
        options: {
            indexAxis: 'y',
            scales: {x: {beginAtZero: true, title: {display: true, text: flops ? `${figureLabel(suite.figure)} (the suite's timing rule)`
                                                                                : 'GB/s (from the minimum time)'}}},
            plugins: {
                legend: {display: false},
                tooltip: {callbacks: {afterLabel: (item) => {
                    const r = ok[item.dataIndex];
                    const f = peakFraction(r, platforms);
                    return [`${gbs(r.bandwidth_bytes_per_s)} GB/s, ${gflopsText(r)} GFLOP/s`,
                            f === null ? 'peak unknown' : `${pct(f)} of peak bandwidth`];
                }}},
            },
        },
    });
}

// The job's rows by run: the current run's (those no later run superseded) and the earlier runs', oldest first,
// as [[run, rows], ...].
function byRun(results) {
    const current = results.filter((r) => !superseded(r));
    const earlier = new Map();
    for (const r of results.filter(superseded))
        earlier.set(r.attempt, [...(earlier.get(r.attempt) || []), r]);
    return {current, earlier: [...earlier.entries()].sort((a, b) => a[0] - b[0])};
}

// The earlier runs' rows, collapsed: each run labelled, "superseded by run N", its rows marked with their flags;
// the summary names the runs that stored no result (a lost lease, a worker's goodbye) too.
function earlierRuns(earlier, current, platforms, timing, runs) {
    const last = current.length ? current[0].attempt : null;
    const n = earlier.reduce((a, [, rows]) => a + rows.length, 0);
    const none = runs - earlier.length - (current.length ? 1 : 0);
    return el('details', {id: 'job-earlier-runs'},
              el('summary', {}, `earlier runs: ${earlier.length} (${n} result${n === 1 ? '' : 's'}), ` +
                                `superseded${last ? ` by run ${last}` : ''}: they count nowhere` +
                                (none > 0 ? `; ${none} more run${none === 1 ? '' : 's'} stored no result` : '')),
              earlier.map(([run, rows]) => [
                  el('h3', {'data-run': String(run)}, `run ${run}`,
                     el('small', {class: 'muted'}, ` superseded by run ${rows[0].superseded_by ?? last ?? '?'}`)),
                  resultsTable(rows, platforms, timing)]));
}

// The job's history: every re-queue, "run 1: unstable, repeat 1 of 2: ...", in order (from the document, then
// from the event stream, which replays them: each once).
function historyItem(h) {
    return el('li', {}, el('strong', {}, `run ${h.run}: `), h.note);
}

// What the job's results measured (every kernel of a job shares them): the problem size, the variant.
function problemFacts(results) {
    const r = results[0];
    return el('dl', {class: 'facts'},
              fact('problem', el('span', {id: 'job-problem'}, problemText(r))),
              fact('variant', el('span', {id: 'job-variant'}, variantText(r) || 'none')),
              launchText(r) ? fact('launch', el('span', {id: 'job-launch'}, launchText(r))) : '');
}

export async function render(root, route, ctx) {
    const id = route.arg;
    if (!/^\d+$/.test(id)) {
        root.append(el('h1', {}, 'Job'), empty('no job id in the link: open a job from ', link('#/fleet', 'Fleet'),
                                               ' or ', link('#/submit', 'submit one')));
        return;
    }
    const [job, platforms, catalog] = await Promise.all([api(`/api/v1/jobs/${id}`), platformsById(),
                                                         suites()]);
    const stateEl = el('span', {id: 'job-state'}, badge(job.state));
    const bar = el('progress', {id: 'job-progress', max: 1, value: job.progress});
    const barText = el('span', {class: 'muted'}, pct(job.progress));
    const live = el('span', {id: 'job-live', class: 'muted', 'data-events': 0});
    const errorEl = el('div', {id: 'job-error'});
    const actions = el('div', {class: 'actions'});
    const results = el('div', {id: 'job-results'});
    const startedEl = el('dd', {id: 'job-started'}, when(job.started_at) || 'not yet');
    const finishedEl = el('dd', {id: 'job-finished'}, when(job.finished_at) || 'not yet');
    const repeatsEl = el('dd', {id: 'job-repeats'}, String(job.repeats ?? 0));
    const noteEl = el('dd', {id: 'job-note'}, job.note || 'none');
    const historyEl = el('ol', {id: 'job-history'});
    const historyDd = el('dd', {}, 'none');
    const seen = new Set();
    const addHistory = (h) => {
        const key = `${h.run}\u0000${h.note}`;
        if (seen.has(key))
            return;
        if (!seen.size)
            historyDd.replaceChildren(historyEl);
        seen.add(key);
        historyEl.append(historyItem(h));
    };
    for (const h of job.history || [])
        addHistory(h);
    // a queued job held back by one measurement at a time per host: the running job that holds it
    const waitingEl = el('dd', {id: 'job-waiting'}, job.waiting || '-');
    // a queued job no live worker serves (the server's warning): it may wait for ever
    const warningEl = el('div', {id: 'job-warning', class: 'error', hidden: !job.warning}, job.warning || '');
    const where = job.platform ? link(pageHref('platform', {id: job.platform}), job.platform)
                               : `selector ${JSON.stringify(job.selector)}`;
    const ranOn = job.ran_on && job.ran_on !== job.platform ? ` (ran on ${job.ran_on})` : '';
    root.append(el('h1', {}, `Job #${job.id} `, stateEl),
                el('dl', {class: 'facts'},
                   el('dt', {}, 'suite'), el('dd', {}, `${job.suite}: ${job.kernels.join(', ')}`),
                   el('dt', {}, 'model'), el('dd', {}, job.model),
                   el('dt', {}, 'platform'), el('dd', {}, where, ranOn),
                   el('dt', {}, 'params'), el('dd', {}, el('code', {id: 'job-params'}, paramsText(job.params))),
                   el('dt', {}, 'runs'), el('dd', {id: 'job-attempts', title: 'its runs, and the failed ones: only ' +
                                                   'failures spend max_attempts (a repeat for noise or a worker\'s ' +
                                                   'goodbye does not)'}, runsText(job)),
                   el('dt', {}, 'repeats for noise'), repeatsEl, el('dt', {}, 'note'), noteEl,
                   el('dt', {}, 'history'), historyDd,
                   el('dt', {}, 'waiting'), waitingEl,
                   el('dt', {}, 'created'), el('dd', {}, when(job.created_at)),
                   el('dt', {}, 'started'), startedEl, el('dt', {}, 'finished'), finishedEl),
                warningEl, el('div', {class: 'progress'}, bar, ' ', barText, ' ', live), errorEl, actions, results);

    let state = job.state;
    let es = null;
    let finished = false;
    const cancel = el('button', {id: 'cancel-job', type: 'button'}, 'Cancel job');
    cancel.addEventListener('click', async () => {
        cancel.disabled = true;
        errorEl.replaceChildren();
        try {
            const j = await api(`/api/v1/jobs/${id}/cancel`, {method: 'POST', auth: true});
            update({state: j.state, error: j.error});
        } catch (e) {
            errorEl.replaceChildren(errorBox(e, 'not cancelled'));
            cancel.disabled = false;
        }
    });

    async function showResults() {
        const full = await api(`/api/v1/jobs/${id}`);
        if (ctx.left)
            return;
        results.replaceChildren(el('h2', {}, 'Results'));
        startedEl.textContent = when(full.started_at) || 'never';
        finishedEl.textContent = when(full.finished_at);
        repeatsEl.textContent = String(full.repeats ?? 0);
        noteEl.textContent = full.note || 'none';
        for (const h of full.history || [])
            addHistory(h);
        if (full.error)
            errorEl.replaceChildren(el('div', {class: 'error'}, `job ${full.state}: ${full.error}`));
        if (!full.results.length) {
            const why = {succeeded: 'the job stored no results', cancelled: 'no results: the job was cancelled'};
            results.append(empty(why[full.state] || 'no results: the job failed'));
            return;
        }
        const suite = catalog.suites.find((s) => s.name === full.suite) || {};
        const runs = byRun(full.results);
        const timing = jobTiming(full, suite);
        if (runs.earlier.length && runs.current.length)
            results.append(el('p', {id: 'job-current-run', class: 'note'},
                              `run ${runs.current[0].attempt}, the job's current run: its results are the ones that count`));
        if (runs.current.length) {
            results.append(problemFacts(runs.current));
            resultsChart(ctx, results, suite, runs.current, platforms);
            results.append(resultsTable(runs.current, platforms, timing), flagLegend(runs.current));
        }
        if (runs.earlier.length)
            results.append(earlierRuns(runs.earlier, runs.current, platforms, timing, full.attempts));
        const all = pageHref('results', {suite: full.suite, platform: full.ran_on, model: full.model});
        results.append(el('p', {}, link(all, 'all results of this platform and model')));
    }

    function update(data) {
        // The stream's state events carry started_at and finished_at (jobs_record_event, schema/functions/documents.sql).
        if (data.started_at)
            startedEl.textContent = when(data.started_at);
        else if (data.state === 'running' && startedEl.textContent === 'not yet')
            startedEl.textContent = `${new Date().toLocaleString()} (as seen here)`;
        if (data.finished_at)
            finishedEl.textContent = when(data.finished_at);
        if (data.state) {
            state = data.state;
            stateEl.replaceChildren(badge(state));
            if (data.attempts !== undefined)
                document.getElementById('job-attempts').textContent =
                    runsText({...job, attempts: data.attempts, failures: data.failures ?? job.failures});
            if (data.state === 'queued' && data.note)
                addHistory({run: data.attempts, note: data.note});
            if (data.repeats !== undefined)
                repeatsEl.textContent = String(data.repeats);
            if (data.note !== undefined)
                noteEl.textContent = data.note || 'none';
            if (state !== 'queued') {
                waitingEl.textContent = '-';
                warningEl.hidden = true;
            }
        }
        if (data.progress !== undefined) {
            bar.value = data.progress;
            barText.textContent = pct(data.progress);
        }
        bar.className = state; // a failed or cancelled job's bar is red and says so, never a full green bar
        if (TERMINAL.includes(state)) {
            if (state === 'succeeded') {
                bar.value = 1;
                barText.textContent = pct(1);
            } else {
                barText.textContent = `${state} at ${pct(bar.value)}`;
            }
            actions.replaceChildren();
            live.textContent = '';
            finish();
        } else if (!actions.firstChild) {
            actions.append(cancel);
        }
    }

    // Once terminal: stop following (an EventSource left open would reconnect and replay) and show the results.
    function finish() {
        if (finished)
            return;
        finished = true;
        if (es)
            es.close();
        showResults().catch((e) => results.replaceChildren(errorBox(e, 'results')));
    }

    update({});
    if (finished)
        return;
    // Live: the stream replays the job's events from the start, then follows them.
    es = new EventSource(`/api/v1/jobs/${id}/events`);
    ctx.onLeave(() => es.close());
    let events = 0;
    live.textContent = 'connecting…';
    const onEvent = (ev) => {
        live.dataset.events = String(++events);
        live.textContent = 'live';
        update(JSON.parse(ev.data));
    };
    es.addEventListener('state', onEvent);
    es.addEventListener('progress', onEvent);
    es.addEventListener('error', () => {
        if (!TERMINAL.includes(state))
            live.textContent = es.readyState === EventSource.CLOSED ? 'event stream closed: reload the page'
                                                                    : 'reconnecting…';
    });
}
