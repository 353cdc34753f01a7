// fleet: hosts, platforms (an imported one says so; one on a Slurm node shows Slurm's state), workers (alive,
// busy, stale), queue depth (a link to the Jobs page), the platforms by health state (each count a link to the
// Health page showing that state) and recent failures, refreshed every 5 s. Calls GET /api/v1/platforms,
// /hosts, /workers, /health and /jobs?state=queued|running|failed.
import {healthCounts} from './health.js';
import {ago, api, badge, el, empty, errorBox, gbs, link, pageHref, runsText, table, when} from './ui.js';

const REFRESH_MS = 5000;

function count(doc) {
    return `${doc.jobs.length}${doc.next_cursor ? '+' : ''}`;
}

function card(label, value, note) {
    return el('div', {class: 'card'}, el('div', {class: 'value'}, value), el('div', {class: 'label'}, label),
              note ? el('div', {class: 'note'}, note) : null);
}

function noPlatforms() {
    const url = location.origin;
    return empty('no platforms yet: start a worker on each node with ',
                 el('code', {}, `ppbench-worker serve --server ${url} --platform cpu0 --token TOKEN`),
                 ' (a worker token comes from ', el('code', {}, 'ppbenchd token create --role worker'),
                 '; ', el('code', {}, 'ppbench-worker list'), ' shows the platform ids), or start ',
                 el('code', {}, 'ppbenchd'), ' with no database URL: it supervises one worker per local platform');
}

function platformsTable(platforms) {
    return table(['platform', 'name', 'kind', 'models', 'peak GB/s', 'worker', 'last heartbeat'],
                 platforms.map((p) => [
                     link(pageHref('platform', {id: p.id}), p.id),
                     p.name,
                     p.kind,
                     p.models.join(', '),
                     el('span', {title: p.peak_source},
                        p.peak_bandwidth_bytes_per_s ? gbs(p.peak_bandwidth_bytes_per_s) : 'unknown'),
                     p.worker ? badge(p.worker.state)
                              : p.slurm ? el('span', {class: 'badge slurm', title: p.slurm.reason ||
                                                 `Slurm node ${p.slurm.node}, partition ${p.slurm.partition}`},
                                             `slurm: ${p.slurm.state}`)
                              : p.origin === 'import' ? el('span', {class: 'badge imported', title:
                                                               'imported results: no worker, by design'}, 'imported')
                              : badge('none'),
                     p.worker ? ago(p.worker.last_heartbeat) : '',
                 ]));
}

function workersTable(workers) {
    return table(['worker', 'host', 'platform', 'state', 'job', 'pid', 'version', 'started', 'last heartbeat'],
                 workers.map((w) => [
                     String(w.id), w.host, link(pageHref('platform', {id: w.platform}), w.platform), badge(w.state),
                     w.job_id ? link(`#/job/${w.job_id}`, `#${w.job_id}`) : '', String(w.pid), w.version,
                     when(w.started_at), ago(w.last_heartbeat),
                 ]));
}

function jobsTable(jobs) {
    return table(['job', 'state', 'model', 'platform', 'runs', 'finished', 'error'],
                 jobs.map((j) => [
                     link(`#/job/${j.id}`, `#${j.id}`), badge(j.state), j.model,
                     j.ran_on || j.platform || 'selector', runsText(j), when(j.finished_at),
                     el('span', {class: 'reason'}, j.error || ''),
                 ]));
}

function hostsTable(hosts) {
    return table(['host', 'platforms', 'first seen', 'last seen'],
                 hosts.map((h) => [h.name, h.platforms.join(', '), when(h.first_seen), ago(h.last_seen)]));
}

export async function render(root, _route, ctx) {
    const body = el('div');
    root.append(el('h1', {}, 'Fleet'), body);

    async function load() {
        const [platforms, workers, hosts, health, queued, running, failed] = await Promise.all([
            api('/api/v1/platforms'), api('/api/v1/workers'), api('/api/v1/hosts'), api('/api/v1/health'),
            api('/api/v1/jobs?state=queued&limit=1000'), api('/api/v1/jobs?state=running&limit=1000'),
            api('/api/v1/jobs?state=failed&limit=10'),
        ]);
        const ws = workers.workers;
        const n = (state) => ws.filter((w) => w.state === state).length;
        body.replaceChildren(
            el('div', {class: 'cards'},
               card('hosts', String(hosts.hosts.length)),
               card('platforms', String(platforms.platforms.length)),
               card('workers alive', String(n('idle') + n('busy')), `${n('busy')} busy, ${n('idle')} idle`),
               card('workers stale', String(n('stale')), 'no heartbeat within the lease'),
               el('a', {href: pageHref('jobs', {state: 'queued'}), id: 'queue-depth', class: 'card-link'}, card('queue depth', count(queued), 'jobs waiting')),
               el('a', {href: pageHref('jobs', {state: 'running'}), class: 'card-link'}, card('running', count(running)))),
            el('h2', {}, 'Health ', el('small', {}, link(pageHref('health'), 'all devices'))),
            healthCounts(health.counts, ''),
            el('h2', {}, 'Platforms'),
            platforms.platforms.length ? platformsTable(platforms.platforms) : noPlatforms(),
            el('h2', {}, 'Workers'),
            ws.length ? workersTable(ws) : empty('no workers registered: see above how to start one'),
            el('h2', {}, 'Recent failures ', el('small', {}, link(pageHref('jobs', {state: 'failed'}), 'all jobs'))),
            failed.jobs.length ? jobsTable(failed.jobs)
                               : empty('no failed jobs', ' (', link('#/submit', 'submit a job'), ')'),
            el('h2', {}, 'Hosts'),
            hosts.hosts.length ? hostsTable(hosts.hosts)
                               : empty('no hosts yet: hosts appear when their workers register'),
            el('p', {class: 'muted'}, `updated ${new Date().toLocaleTimeString()}, every ${REFRESH_MS / 1000} s`));
    }

    // The next refresh is planned when this one has answered, so a slow server never gets them piled up.
    let timer = null;
    async function tick() {
        try {
            await load();
        } catch (e) {
            if (!ctx.left)
                body.replaceChildren(errorBox(e, 'fleet'));
        }
        if (!ctx.left)
            timer = setTimeout(tick, REFRESH_MS);
    }
    ctx.onLeave(() => clearTimeout(timer));
    await tick();
}
