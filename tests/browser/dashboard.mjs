// dashboard: the dashboard in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright)
// against a real ppbenchd with PostgreSQL and a worker, started by tests/cli/browser.sh, which passes
// PPBENCH_URL, PPBENCH_TOKEN (role admin), PPBENCH_PLATFORM (the cpu0 platform id), PPBENCH_MODELS (the models
// it runs) and SHOTS (the screenshot folder). It does what a user does: enters the token, submits STREAM jobs
// and a Wilson Dslash job from the form, watches them on the Job page, reads the charts. Prints one
// PASS/FAIL/SKIP line per check.
import {execFileSync} from 'node:child_process';
import {chromium} from 'playwright-core';

const URL_ = process.env.PPBENCH_URL;
const TOKEN = process.env.PPBENCH_TOKEN;
const CPU = process.env.PPBENCH_PLATFORM;
const MODELS = (process.env.PPBENCH_MODELS || 'openmp').split(/\s+/).filter(Boolean);
const SHOTS = process.env.SHOTS || 'build/browser-shots';
// The series colours of web/ui.js: the first and second model's bars and lines.
const BLUE = '#1f77b4';
const ORANGE = '#ff7f0e';

const oneLine = (s) => String(s).replace(/\s+/g, ' ').slice(0, 400);
// The first line of an error, without Playwright's call log and colour codes.
const why = (e) => oneLine(String(e.message).replace(/\x1b\[[0-9;]*m/g, '').split('\n')[0]);
const state = {ppStatus: null};

async function check(name, fn) {
    try {
        const r = await fn();
        if (r && r.skip)
            console.log(`SKIP ${name}: ${r.skip}`);
        else
            console.log(`PASS ${name}${r && r.note ? ` (${r.note})` : ''}`);
        return true;
    } catch (e) {
        console.log(`FAIL ${name}: ${why(e)}`);
        return false;
    }
}

function ensure(cond, why) {
    if (!cond)
        throw new Error(why);
}

// Pixels of a colour (within a small tolerance, opaque) on the canvas that selector finds: a chart's bars or
// lines, never its axes or labels.
async function pixels(page, selector, hex) {
    return page.evaluate(([sel, color]) => {
        const canvas = document.querySelector(sel);
        if (!canvas)
            return -1;
        const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4)
            if (data[i + 3] > 200 && Math.abs(data[i] - want[0]) < 10 && Math.abs(data[i + 1] - want[1]) < 10 &&
                Math.abs(data[i + 2] - want[2]) < 10)
                n++;
        return n;
    }, [selector, hex]);
}

async function shot(page, name) {
    await page.screenshot({path: `${SHOTS}/${name}.png`, fullPage: true});
}

async function go(page, hash) {
    await page.goto(`${URL_}/${hash}`);
}

// Submit the form as it stands after setting these fields; returns the new job id (from the Job page's URL).
async function submitJob(page, model, arraysize, numtimes) {
    await go(page, `#/submit?platform=${CPU}&model=${model}`);
    await page.waitForSelector('#submit-job');
    ensure(await page.inputValue('[name="model"]') === model, `model ${model} not offered for ${CPU}`);
    await page.fill('[name="params.arraysize"]', String(arraysize));
    await page.fill('[name="params.numtimes"]', String(numtimes));
    await page.click('#submit-job');
    await page.waitForURL(/#\/job\/\d+$/, {timeout: 10000});
    return page.url().match(/#\/job\/(\d+)$/)[1];
}

async function waitState(page, want, timeout) {
    await page.waitForFunction((w) => document.querySelector('#job-state')?.textContent === w, want, {timeout});
}

const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({viewport: {width: 1280, height: 900}});
const consoleErrors = [];
page.on('console', (m) => {
    if (m.type() === 'error')
        consoleErrors.push({text: m.text(), url: m.location().url || ''});
});
page.on('pageerror', (e) => consoleErrors.push({text: `uncaught: ${e.message}`, url: ''}));

await check('fleet page lists the platform and its worker', async () => {
    const t0 = Date.now();
    await go(page, '#/fleet');
    await page.waitForSelector(`table a[href*="${CPU}"]`, {timeout: 10000});
    const ms = Date.now() - t0;
    const text = await page.textContent('.page');
    ensure(/workers alive/.test(text) && /queue depth/.test(text), 'no summary cards');
    ensure(/\b(idle|busy)\b/.test(text), 'the worker is not shown alive');
    await shot(page, '01-fleet');
    return {note: `${ms} ms`};
});

await check('empty results page says what to do', async () => {
    await go(page, '#/results');
    const e = await page.waitForSelector('.empty', {timeout: 10000});
    const text = await e.textContent();
    ensure(/no results yet/.test(text) && /submit a job/.test(text), `empty state: "${text}"`);
});

await check('token entered once is kept in localStorage', async () => {
    await go(page, '#/submit');
    await page.fill('#token', TOKEN);
    await page.click('#token-save');
    ensure(await page.evaluate(() => localStorage.getItem('ppbench.token')) === TOKEN, 'not in localStorage');
    await page.reload();
    await page.waitForSelector('#submit-job');
    ensure(await page.textContent('#token-state') === 'token saved', 'not shown as saved after a reload');
});

await check('422 from the API shown next to its field', async () => {
    await go(page, `#/submit?platform=${CPU}&model=openmp`);
    await page.waitForSelector('#submit-job');
    await page.fill('[name="params.arraysize"]', '0');
    await page.click('#submit-job');
    const err = await page.waitForSelector('[data-field="params.arraysize"] .field-error:not(:empty)', {timeout: 10000});
    const text = await err.textContent();
    ensure(/params\.arraysize must be from 1/.test(text), `field message: "${text}"`);
    ensure(page.url().includes('#/submit'), 'left the form');
    await shot(page, '02-submit-422');
    // What is typed goes to the API as typed: "12x" is refused by name, never replaced by the default.
    await page.fill('[name="params.numtimes"]', '12x');
    await page.fill('[name="params.arraysize"]', '1000');
    await page.click('#submit-job');
    const err2 = await page.waitForSelector('[data-field="params.numtimes"] .field-error:not(:empty)', {timeout: 10000});
    const text2 = await err2.textContent();
    ensure(/params\.numtimes must be an integer/.test(text2), `field message: "${text2}"`);
    ensure(await page.textContent('[data-field="params.arraysize"] .field-error') === '', 'the old message stayed');
    return {note: `${text}; ${text2}`};
});

let jobId = null;
await check('submit a STREAM job (openmp) from the form', async () => {
    jobId = await submitJob(page, 'openmp', 1000000, 40);
    return {note: `job ${jobId}`};
});

await check('job page follows the job live (Server-Sent Events) until it succeeds', async () => {
    ensure(jobId, 'no job');
    await waitState(page, 'succeeded', 120000);
    const events = Number(await page.getAttribute('#job-live', 'data-events'));
    ensure(events >= 2, `only ${events} events arrived over the stream`);
    ensure(await page.evaluate(() => document.querySelector('#job-progress').value) === 1, 'progress is not 100 %');
    return {note: `${events} events`};
});

await check('job page shows the results table and draws the bandwidth chart', async () => {
    await page.waitForSelector('#job-results table tbody tr', {timeout: 10000});
    const rows = await page.$$eval('#job-results table tbody tr', (r) => r.length);
    ensure(rows === 6, `${rows} result rows, expected 6`);
    const n = await pixels(page, '#job-results canvas', BLUE);
    ensure(n > 500, `the chart has ${n} bar pixels`);
    ensure(/%/.test(await page.textContent('#job-results table')), 'no % of peak (a peak is set for cpu0)');
    await shot(page, '03-job');
    return {note: `${n} bar pixels`};
});

const second = MODELS.find((m) => m !== 'openmp' && m !== 'cuda');
await check(`second model (${second || 'none'}) from the form, for the cascade`, async () => {
    if (!second)
        return {skip: `${CPU} runs no model besides openmp here`};
    const id = await submitJob(page, second, 1000000, 40);
    await waitState(page, 'succeeded', 180000);
    return {note: `job ${id}`};
});

await check('results page draws bars of bandwidth, filters from the link', async () => {
    const t0 = Date.now();
    await go(page, '#/results?suite=stream&kernel=triad');
    await page.waitForSelector('.page canvas', {timeout: 10000});
    const ms = Date.now() - t0;
    ensure(await page.inputValue('[name="kernel"]') === 'triad', 'the kernel filter was not taken from the link');
    const blue = await pixels(page, '.page canvas', BLUE);
    const orange = second ? await pixels(page, '.page canvas', ORANGE) : 1;
    ensure(blue > 200 && orange > 0, `bar pixels: ${blue} of the first model, ${orange} of the second`);
    const rows = await page.$$eval('.page table tbody tr', (r) => r.length);
    ensure(rows === (second ? 2 : 1), `${rows} triad results listed`);
    ensure(/%/.test(await page.textContent('.page table')), 'no % of peak column values');
    await shot(page, '04-results');
    return {note: `${ms} ms to the chart, ${blue}+${orange} bar pixels`};
});

await check('results: a changed filter goes into the link', async () => {
    await page.selectOption('[name="metric"]', 'peak');
    await page.waitForFunction(() => location.hash.includes('metric=peak'));
    await page.waitForSelector('.page canvas');
    ensure(await pixels(page, '.page canvas', BLUE) > 200, 'no bars in % of peak');
    await page.selectOption('[name="precision"]', 'fp32');
    await page.waitForSelector('.page .empty');
    ensure(/precision=fp32/.test(await page.evaluate(() => location.hash)), 'precision not in the link');
    ensure(/no results match/.test(await page.textContent('.page .empty')), 'no empty state for fp32');
});

await check('platform page: history of a kernel with provenance on hover', async () => {
    await go(page, `#/platform?id=${CPU}&kernel=triad`);
    await page.waitForSelector('.page canvas', {timeout: 10000});
    const pos = await page.evaluate(() => {
        const canvas = document.querySelector('.page canvas');
        const c = window.Chart.getChart(canvas);
        const p = c.getDatasetMeta(0).data[0];
        const box = canvas.getBoundingClientRect();
        return {x: box.left + p.x, y: box.top + p.y};
    });
    await page.mouse.move(pos.x, pos.y);
    const lines = await page.waitForFunction(() => {
        const t = window.Chart.getChart(document.querySelector('.page canvas')).tooltip;
        const text = t && t.opacity > 0 ? t.body.flatMap((b) => [...b.lines, ...b.after]).join('\n') : '';
        return /ppbench \S+ on /.test(text) && text;
    }, null, {timeout: 5000});
    const text = await lines.jsonValue();
    ensure(/job #\d+/.test(text) && /cc|gcc|clang/i.test(text), `tooltip: ${text}`);
    await shot(page, '05-platform');
    return {note: oneLine(text).slice(0, 80)};
});

await check('portability page draws the cascade plot and the PP table', async () => {
    const t0 = Date.now();
    await go(page, `#/portability?problem=stream.triad&platforms=${CPU}&efficiency=app`);
    const what = await page.waitForSelector('.page canvas, .page .error, .page .empty', {timeout: 10000});
    const ms = Date.now() - t0;
    await shot(page, '06-portability');
    const text = await what.textContent();
    if (await what.evaluate((n) => n.classList.contains('error'))) {
        if (/501/.test(text)) {
            state.ppStatus = 501;
            return {skip: `GET /api/v1/pp answers 501 (not implemented yet); the page shows: "${oneLine(text)}"`};
        }
        throw new Error(`the page shows an error: ${text}`);
    }
    ensure(await what.evaluate((n) => n.tagName === 'CANVAS'), `no plot: "${text}"`);
    const n = await pixels(page, '.cascade canvas', BLUE);
    ensure(n > 30, `the cascade plot has ${n} pixels of its first line`);
    const rows = await page.$$eval('.page table:first-of-type tbody tr', (r) => r.length);
    ensure(rows >= (second ? 2 : 1), `${rows} applications in the PP table`);
    return {note: `${ms} ms, ${n} line pixels, ${rows} applications`};
});

await check('portability: architectural efficiency from the form, in the link', async () => {
    if (state.ppStatus === 501)
        return {skip: 'GET /api/v1/pp answers 501 (not implemented yet)'};
    await page.check('[name="efficiency"][value="arch"]');
    await page.waitForFunction(() => location.hash.includes('efficiency=arch'));
    await page.waitForSelector('.cascade canvas', {timeout: 10000});
    ensure(await pixels(page, '.cascade canvas', BLUE) > 30, 'no cascade drawn for arch efficiency');
    await shot(page, '06-portability-arch');
});

await check('cancel a running job from the job page (progress seen live first)', async () => {
    const id = await submitJob(page, 'openmp', 4000000, 100000);
    await page.waitForSelector('#cancel-job', {timeout: 10000});
    await waitState(page, 'running', 30000);
    await page.waitForFunction(() => document.querySelector('#job-progress').value > 0, null, {timeout: 30000});
    await shot(page, '07-job-running');
    await page.click('#cancel-job');
    await waitState(page, 'cancelled', 15000);
    await page.waitForSelector('#job-results .empty', {timeout: 10000});
    ensure(!(await page.$('#cancel-job')), 'the cancel button is still there');
    await shot(page, '08-cancelled');
    return {note: `job ${id}`};
});

await check('wilson job from the form: a bad lattice refused by name, then it runs and shows lattice, variant, GFLOP/s',
            async () => {
    await go(page, `#/submit?platform=${CPU}&model=openmp&suite=wilson`);
    await page.waitForSelector('[name="params.lattice"]', {timeout: 10000});
    ensure(await page.inputValue('[name="params.precision"]') === 'fp32', 'wilson is not fp32 by default');
    const layouts = await page.$$eval('[name="params.layout"] option', (o) => o.map((x) => x.value).join());
    ensure(layouts === 'aos,soa', `layouts offered: ${layouts}`);
    await page.fill('[name="params.lattice"]', '4x4x5x4');
    await page.fill('[name="params.numtimes"]', '3');
    await page.click('#submit-job');
    const err = await page.waitForSelector('[data-field="params.lattice"] .field-error:not(:empty)', {timeout: 10000});
    const text = await err.textContent();
    ensure(/params\.lattice: .*extent 5 in z/.test(text), `field message: "${text}"`);
    await page.fill('[name="params.lattice"]', '4x4x4x8');
    await page.selectOption('[name="params.layout"]', 'soa');
    await page.click('#submit-job');
    await page.waitForURL(/#\/job\/\d+$/, {timeout: 10000});
    const id = page.url().match(/#\/job\/(\d+)$/)[1];
    await waitState(page, 'succeeded', 60000);
    const problem = await (await page.waitForSelector('#job-problem', {timeout: 10000})).textContent();
    const variant = await page.textContent('#job-variant');
    ensure(problem === '4x4x4x8 lattice (512 sites), fp32', `problem: "${problem}"`);
    ensure(/layout soa/.test(variant), `variant: "${variant}"`);
    const gflops = await page.evaluate(() => {
        const t = document.querySelector('#job-results table');
        const col = [...t.querySelectorAll('thead th')].findIndex((h) => h.textContent === 'GFLOP/s');
        return [...t.querySelectorAll('tbody tr')].map((r) => Number(r.children[col].textContent));
    });
    ensure(gflops.length === 1 && gflops[0] > 0, `GFLOP/s column: ${gflops}`);
    const n = await pixels(page, '#job-results canvas', BLUE);
    ensure(n > 100, `the GFLOP/s chart has ${n} bar pixels`);
    await shot(page, '09-wilson-job');
    return {note: `job ${id}, ${gflops[0]} GFLOP/s; ${text}`};
});

await check('portability page compares models on wilson.dslash (fp32, the suite default)', async () => {
    if (state.ppStatus === 501)
        return {skip: 'GET /api/v1/pp answers 501 (not implemented yet)'};
    await go(page, `#/portability?problem=wilson.dslash&platforms=${CPU}&efficiency=app`);
    await page.waitForSelector('.cascade canvas', {timeout: 10000});
    const text = await page.textContent('.page p.muted');
    ensure(/^wilson\.dslash, fp32, 512 lattice sites/.test(text), `summary: "${text}"`);
    ensure(await pixels(page, '.cascade canvas', BLUE) > 30, 'no cascade drawn for wilson.dslash');
    await shot(page, '10-portability-wilson');
    return {note: oneLine(text).slice(0, 80)};
});

await check('scaling page draws a cg sweep against size with the triad as reference', async () => {
    // A sweep of three sizes through the API (the form submits one job; sweeps are an API feature).
    const sub = await page.evaluate(async ([cpu, token]) => {
        const r = await fetch('/api/v1/jobs', {method: 'POST', headers: {'Content-Type': 'application/json',
                                                                         Authorization: `Bearer ${token}`},
                              body: JSON.stringify({suite: 'cg', model: 'openmp', platform: cpu, kernels: ['spmv', 'axpby'],
                                                    params: {numtimes: 3, iterations: 5},
                                                    sweep: {param: 'n', values: [3, 6, 12]}})});
        return {status: r.status, body: await r.json()};
    }, [CPU, TOKEN]);
    ensure(sub.status === 202 && sub.body.ids.length === 3, `sweep: ${sub.status} ${JSON.stringify(sub.body)}`);
    for (const id of sub.body.ids) {
        const t0 = Date.now();
        for (;;) {
            const j = await page.evaluate(async (i) => (await fetch(`/api/v1/jobs/${i}`)).json(), id);
            if (j.state === 'succeeded')
                break;
            ensure(!['failed', 'cancelled'].includes(j.state) && Date.now() - t0 < 60000, `job ${id}: ${j.state} ${j.error}`);
            await page.waitForTimeout(200);
        }
    }
    await go(page, `#/scaling?platform=${CPU}&suite=cg`);
    await page.waitForSelector('#scaling-body canvas', {timeout: 10000});
    const note = await page.textContent('#scaling-note');
    ensure(/over 3 sizes/.test(note), `note: "${note}"`);
    ensure(/best verified STREAM triad on .* at its largest size/.test(note), `no triad reference: "${note}"`);
    const rows = await page.$$eval('#scaling-body tbody tr', (r) => r.length);
    ensure(rows === 6, `${rows} rows, expected 2 kernels x 3 sizes`);
    const n = await pixels(page, '#scaling-body canvas', BLUE);
    ensure(n > 30, `the first line has ${n} pixels`);
    await shot(page, '11-scaling-cg');
    return {note: oneLine(note)};
});

await check('health page shows a flagged device with its reason, colour and evidence link', async () => {
    // A history for flagged-gpu whose last two runs are 15 % low (a suspect and its confirming repeat), written
    // by tests/cli/browser.sh and stored here, after the pages that count results.
    execFileSync('psql', ['-qAtX', '-v', 'ON_ERROR_STOP=1', process.env.PPBENCH_DB, '-f', process.env.PPBENCH_SEED_SQL]);
    await go(page, '#/health');
    const tile = await page.waitForSelector('.device[data-platform="flagged-gpu"]', {timeout: 10000});
    const st = await tile.getAttribute('data-state');
    ensure(st === 'regressed', `state ${st}`);
    const reason = await tile.$eval('.reason', (n) => n.textContent);
    ensure(/15\.0% below its baseline 100\.00 GB\/s/.test(reason) && /confirmed by a repeat/.test(reason),
           `reason: "${reason}"`);
    const colour = await tile.evaluate((n) => getComputedStyle(n).borderTopColor);
    ensure(colour === 'rgb(198, 40, 40)', `colour ${colour}, expected the regressed red`);
    const href = await tile.$eval('a.evidence', (a) => a.getAttribute('href'));
    ensure(href === '#/platform?id=flagged-gpu', `evidence ${href}`);
    const n = await page.textContent('.card[data-state="regressed"] .value');
    ensure(n === '1', `regressed count ${n}`);
    const cpu = await page.getAttribute(`.device[data-platform="${CPU}"]`, 'data-state');
    ensure(cpu === 'ok', `the worker's platform is ${cpu}`);
    await shot(page, '12-health');
    return {note: oneLine(reason).slice(0, 80)};
});

await check('no console errors', async () => {
    // Expected: the deliberate 422 of the form, and the 501 of an API that does not compute PP yet.
    const unexpected = consoleErrors.filter((e) => !(/Failed to load resource.*status of 422/.test(e.text) && e.url.endsWith('/api/v1/jobs')) &&
                                                   !(/Failed to load resource.*status of 501/.test(e.text) && e.url.includes('/api/v1/pp?')));
    ensure(!unexpected.length, unexpected.map((e) => `${e.text} ${e.url}`).join('; '));
    return {note: `${consoleErrors.length - unexpected.length} expected`};
});

await browser.close();
