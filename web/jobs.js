// jobs: every job of the service, newest first, queued and cancelled ones too, filtered in the server by state,
// platform, suite and tag (GET /api/v1/jobs?state=&platform=&suite=&tag=&cursor=), a page at a time ("more"
// follows next_cursor). #/jobs?state=queued&platform=h/cpu0&suite=stream&tag=nightly. Fleet's queue depth
// links here.
import {TERMINAL, api, badge, el, empty, errorBox, link, option, pageHref, pct, platformsById, plural, runsText, setQuery,
        table, when, suites} from './ui.js';

const PAGE = 50;
const STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

function select(name, label, options, value) {
    return el('label', {class: 'filter'}, label,
              el('select', {name}, option('', 'all'), options.map((o) => option(o, o, o === value))));
}

function rows(jobs) {
    return jobs.map((j) => [
        link(`#/job/${j.id}`, `#${j.id}`), badge(j.state), j.suite, j.model,
        j.ran_on || j.platform || `selector ${JSON.stringify(j.selector)}`,
        el('span', {class: 'tags'}, (j.tags || []).join(', ')),
        when(j.created_at), when(j.started_at), when(j.finished_at),
        TERMINAL.includes(j.state) ? '' : pct(j.progress), runsText(j),
        el('span', {class: 'reason'}, j.error || ''),
    ]);
}

export async function render(root, route, ctx) {
    const q = route.query;
    const f = {state: q.get('state') || '', platform: q.get('platform') || '', suite: q.get('suite') || '',
               tag: q.get('tag') || ''};
    const [catalog, platforms] = await Promise.all([suites(), platformsById()]);
    const tagInput = el('input', {name: 'tag', value: f.tag, placeholder: 'any tag', size: 16});
    const filters = el('form', {class: 'filters', id: 'jobs-filters'},
                       select('state', 'state', STATES, f.state),
                       select('platform', 'platform', [...platforms.keys()], f.platform),
                       select('suite', 'suite', catalog.suites.map((s) => s.name), f.suite),
                       el('label', {class: 'filter'}, 'tag', tagInput));
    const body = el('div', {id: 'jobs-body'});
    root.append(el('h1', {}, 'Jobs'), filters, body);

    let loads = 0;
    async function load() {
        const seq = ++loads;
        const params = new URLSearchParams({limit: PAGE});
        for (const [k, v] of Object.entries(f))
            if (v)
                params.set(k, v);
        const doc = await api(`/api/v1/jobs?${params}`);
        if (ctx.left || seq !== loads)
            return;
        body.replaceChildren();
        if (!doc.jobs.length) {
            const any = Object.values(f).some(Boolean);
            body.append(empty(any ? 'no jobs match these filters: clear some of them, or '
                                  : 'no jobs yet: ', link('#/submit', 'submit one')));
            return;
        }
        const head = ['job', 'state', 'suite', 'model', 'platform', 'tags', 'created', 'started', 'finished',
                      'progress', 'runs', 'error'];
        const t = table(head, rows(doc.jobs));
        t.id = 'jobs-table';
        const count = el('p', {class: 'muted', id: 'jobs-count'});
        let shown = doc.jobs.length;
        let cursor = doc.next_cursor;
        const more = el('button', {type: 'button', id: 'jobs-more'}, 'more');
        const say = () => {
            count.textContent = `${plural(shown, 'job')}${cursor ? ', more below' : ''}`;
            more.hidden = !cursor;
        };
        more.addEventListener('click', async () => {
            more.disabled = true;
            try {
                params.set('cursor', cursor);
                const next = await api(`/api/v1/jobs?${params}`);
                const tb = t.querySelector('tbody');
                for (const r of table(head, rows(next.jobs)).querySelectorAll('tbody tr'))
                    tb.append(r);
                shown += next.jobs.length;
                cursor = next.next_cursor;
                say();
            } catch (e) {
                body.append(errorBox(e, 'more jobs'));
            }
            more.disabled = false;
        });
        say();
        body.append(count, t, more);
    }

    const changed = (ev) => {
        f[ev.target.name] = ev.target.value.trim();
        setQuery('jobs', f);
        load().catch((e) => body.replaceChildren(errorBox(e, 'jobs')));
    };
    filters.addEventListener('change', changed);
    filters.addEventListener('submit', (ev) => ev.preventDefault());
    await load();
}
