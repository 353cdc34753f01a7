// app: the dashboard's shell. Routes #/page/arg?filters to the page modules (one per page, each exporting
// render(root, route, ctx)), and keeps the API token in localStorage (ui.js) through the header's form. A page
// registers what must stop when it is left (event streams, timers, charts) with ctx.onLeave.
import {el, errorBox, parseHash, setToken, token} from './ui.js';
import * as fleet from './fleet.js';
import * as submit from './submit.js';
import * as job from './job.js';
import * as results from './results.js';
import * as platform from './platform.js';
import * as portability from './portability.js';
import * as scaling from './scaling.js';
import * as jobs from './jobs.js';
import * as result from './result.js';
import * as compare from './compare.js';
import * as health from './health.js';
import * as apidocs from './apidocs.js';

const pages = {fleet, submit, job, jobs, results, result, compare, platform, portability, scaling, health, api: apidocs};
let current = null;

function newContext() {
    const fns = [];
    let left = false;
    return {
        onLeave(fn) {
            if (left)
                fn();
            else
                fns.push(fn);
        },
        get left() {
            return left;
        },
        leave() {
            left = true;
            for (const fn of fns.splice(0))
                fn();
        },
    };
}

async function route() {
    const r = parseHash();
    const view = document.getElementById('view');
    const root = el('div', {class: 'page', 'data-page': r.page});
    if (current)
        current.leave();
    const ctx = (current = newContext());
    view.replaceChildren(root);
    const tab = {platform: 'fleet', job: 'jobs', result: 'results'}[r.page] || r.page;
    for (const a of document.querySelectorAll('nav a'))
        a.classList.toggle('active', a.dataset.page === tab);
    const page = pages[r.page];
    document.title = `ppbench · ${page ? r.page : 'not found'}`;
    if (!page) {
        root.append(el('h1', {}, 'No such page'),
                    el('p', {class: 'empty'}, `there is no page "${r.page}": choose one above`));
        return;
    }
    try {
        await page.render(root, r, ctx);
    } catch (e) {
        if (!ctx.left)
            root.append(errorBox(e));
    }
    root.dataset.ready = 'true'; // the page's first drawing is done (bench/pages.mjs waits for it)
}

function showToken() {
    const has = Boolean(token());
    document.getElementById('token-state').textContent = has ? 'token saved' : 'no token';
    document.getElementById('token').hidden = has;
    document.getElementById('token-save').hidden = has;
    document.getElementById('token-forget').hidden = !has;
}

document.getElementById('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = document.getElementById('token');
    setToken(input.value.trim());
    input.value = '';
    showToken();
});
document.getElementById('token-forget').addEventListener('click', () => {
    setToken('');
    showToken();
});

window.addEventListener('hashchange', route);
showToken();
route();
