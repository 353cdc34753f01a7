// pages: how long every page of the dashboard takes to become usable in a real headless Chromium (Debian's,
// driven by the pinned playwright-core of tests/browser), against a running ppbenchd: from navigation to its
// charts drawn and its tables filled. Run by bench/pp.sh with PPBENCH_URL set, and PPBENCH_PLATFORM, PPBENCH_JOB,
// PPBENCH_JOB2 and PPBENCH_RESULT naming what the pages of one platform, job, pair of jobs and result show
// (those pages are left out when unset).
//   node bench/pages.mjs [N]
import {createRequire} from 'module';

const require = createRequire(new URL('../tests/browser/package.json', import.meta.url));
const {chromium} = require('playwright-core');
const URL_ = process.env.PPBENCH_URL;
const N = Number(process.argv[2] || 7);
const {PPBENCH_PLATFORM: P, PPBENCH_JOB: J, PPBENCH_JOB2: J2, PPBENCH_RESULT: R} = process.env;
// [name, hash, selectors that say it is usable, what it needs]
const pages = [
    ['Fleet', '#/fleet', ['#queue-depth', 'table tbody tr']],
    ['Submit', '#/submit', ['#submit-job']],
    ['Jobs', '#/jobs', ['#jobs-table tbody tr']],
    ['Job', `#/job/${J}`, ['#job-results table tbody tr'], J],
    ['Results (stream, triad)', '#/results?suite=stream&kernel=triad', ['canvas', 'table tbody tr']],
    ['Result (provenance)', `#/result/${R}`, ['#result-compiler'], R],
    ['Compare (two jobs)', `#/compare?a_job=${J}&b_job=${J2}`, ['#compare-table tbody tr'], J && J2],
    ['Platform (history, triad)', `#/platform?id=${P}&kernel=triad`, ['#history-note', '.page canvas'], P],
    ['Portability (stream.triad, app)', '#/portability?problem=stream.triad&efficiency=app',
     ['.cascade canvas', 'table tbody tr']],
    ['Portability (stream.triad, arch)', '#/portability?problem=stream.triad&efficiency=arch',
     ['.cascade canvas', 'table tbody tr']],
    ['Scaling (stream)', `#/scaling?platform=${P}&suite=stream`, ['#scaling-body canvas'], P],
    ['Health', '#/health', ['.device']],
    ['API reference', '#/api', ['details.op']],
].filter((p) => p.length < 4 || p[3]);

const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({viewport: {width: 1280, height: 900}});
for (const [name, hash, selectors] of pages) {
    const times = [];
    for (let i = 0; i < N + 1; i++) {
        await page.goto('about:blank');
        const t0 = performance.now();
        await page.goto(`${URL_}/${hash}`);
        for (const s of selectors)
            await page.waitForSelector(s, {timeout: 30000});
        // Two frames: Chart.js has painted.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        if (i > 0) // the first load warms the browser's own caches
            times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const p = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
    console.log(`${name.padEnd(36)} usable in: median ${p(0.5).toFixed(0)} ms, max ${p(1).toFixed(0)} ms (${N} loads)`);
}
await browser.close();
