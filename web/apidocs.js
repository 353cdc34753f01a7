// apidocs: the interactive API reference, drawn from the OpenAPI document ppbenchd serves
// (GET /api/v1/openapi.json, docs/openapi.json embedded at build time): every operation grouped by tag with its
// role, parameters, request body and answers (schemas drawn as trees, $refs named and expanded), a filter, and
// "try it": a form for the path and query parameters and the body, a token field (the saved token by default),
// the request sent from the browser with fetch and the answer shown as it came (status, time, content type,
// body). Nothing is fetched from anywhere but ppbenchd. Styles are inline: this page owns no CSS.
import {el, empty, errorBox, api, pageHref, setQuery, token} from './ui.js';

const METHOD_COLORS = {get: '#1f77b4', post: '#2e7d32', put: '#8a6d00', patch: '#6a1b9a', delete: '#c62828'};
const METHODS = Object.keys(METHOD_COLORS);
const MAX_DEPTH = 6;

// The node a local $ref ("#/components/schemas/Job") names, or the node itself.
function deref(doc, node) {
    for (let guard = 0; node && node.$ref && guard < 16; guard++)
        node = node.$ref.slice(2).split('/').reduce((n, part) => n && n[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return node || {};
}

function refName(node) {
    return node && node.$ref ? node.$ref.split('/').pop() : null;
}

function typeText(doc, s) {
    const name = refName(s);
    s = deref(doc, s);
    let t = Array.isArray(s.type) ? s.type.join(' | ') : s.type || '';
    if (s.enum)
        t = s.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) {
        const it = s.items ? typeText(doc, s.items) : 'any';
        t = t.replace('array', `array of ${it}`);
    }
    if (s.allOf)
        t = t || s.allOf.map((x) => refName(x) || 'object').join(' + ');
    if (s.oneOf || s.anyOf)
        t = (s.oneOf || s.anyOf).map((x) => typeText(doc, x)).join(' | ');
    return name ? `${name}${t && !t.startsWith('object') ? ` (${t})` : ''}` : t || 'any';
}

// The properties of an object schema, with those of its allOf parts.
function properties(doc, s) {
    s = deref(doc, s);
    const props = {...(s.properties || {})};
    const required = new Set(s.required || []);
    for (const part of s.allOf || []) {
        const sub = properties(doc, part);
        Object.assign(props, sub.props);
        sub.required.forEach((r) => required.add(r));
    }
    return {props, required};
}

// A schema as a nested list: one line per property (name, type, required, description).
function schemaTree(doc, s, depth = 0, seen = new Set()) {
    const node = deref(doc, s);
    const name = refName(s);
    if (name && seen.has(name))
        return el('span', {class: 'muted'}, ` (${name}, as above)`);
    const seen2 = new Set(seen);
    if (name)
        seen2.add(name);
    const target = node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array')) ? node.items || {} : node;
    const {props, required} = properties(doc, target);
    if (Object.keys(props).length === 0 || depth >= MAX_DEPTH)
        return null;
    return el('ul', {class: 'schema', style: 'list-style:none;margin:2px 0;padding-left:16px;border-left:1px solid var(--line)'},
              Object.entries(props).map(([k, v]) => {
                  const d = deref(doc, v);
                  return el('li', {'data-prop': k},
                            el('code', {}, k), ' ', el('span', {style: 'color:#6a1b9a'}, typeText(doc, v)),
                            required.has(k) ? el('span', {class: 'muted'}, ' · required') : null,
                            d.description || v.description ? el('span', {class: 'muted'}, ` · ${v.description || d.description}`) : null,
                            schemaTree(doc, v, depth + 1, seen2));
              }));
}

function schemaBlock(doc, media) {
    return Object.entries(media || {}).map(([type, m]) =>
        el('div', {class: 'media'}, el('div', {}, el('code', {}, type), ' ', el('span', {style: 'color:#6a1b9a'},
                                                                              m.schema ? typeText(doc, m.schema) : '')),
           m.schema ? schemaTree(doc, m.schema) : null));
}

// A body to start from: the required properties of a JSON request body, with placeholder values.
function skeleton(doc, s, depth = 0) {
    s = deref(doc, s);
    const t = Array.isArray(s.type) ? s.type[0] : s.type;
    if (s.example !== undefined)
        return s.example;
    if (s.enum)
        return s.enum[0];
    if (t === 'object' || s.properties) {
        const out = {};
        if (depth < 3)
            for (const k of s.required || [])
                out[k] = skeleton(doc, (s.properties || {})[k] || {}, depth + 1);
        return out;
    }
    return {integer: 0, number: 0, boolean: false, array: [], string: ''}[t] ?? null;
}

function tryIt(doc, method, path, op) {
    const params = (op.parameters || []).map((p) => deref(doc, p));
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    const fields = [
        ...inPath.map((name) => ({name, where: 'path', required: true})),
        ...params.filter((p) => p.in === 'query').map((p) => ({name: p.name, where: 'query', required: p.required})),
    ];
    const inputs = {};
    const rows = fields.map((f) => el('label', {class: 'filter'}, `${f.name} (${f.where}${f.required ? ', required' : ''})`,
                                      inputs[`${f.where}:${f.name}`] = el('input', {name: f.name, 'data-in': f.where})));
    const body = op.requestBody ? deref(doc, op.requestBody) : null;
    const bodyType = body ? Object.keys(body.content || {})[0] : null;
    const bodyInput = body ? el('textarea', {name: 'body', rows: 6, style: 'width:100%;font:12px ui-monospace,monospace'}) : null;
    if (bodyInput)
        bodyInput.value = bodyType === 'application/json' ? JSON.stringify(skeleton(doc, body.content[bodyType].schema), null, 1) : '';
    const tokenInput = el('input', {type: 'password', name: 'token', value: token(), placeholder: 'bearer token (the saved one by default)',
                                    autocomplete: 'off', style: 'width:260px'});
    const out = el('div', {class: 'answer'});
    const send = el('button', {type: 'submit', class: 'send'}, 'Send');
    const form = el('form', {class: 'try', style: 'margin-top:8px'},
                    el('div', {class: 'filters'}, rows, el('label', {class: 'filter'}, 'token', tokenInput)),
                    bodyInput ? el('label', {class: 'filter'}, `body (${bodyType})`, bodyInput) : null,
                    el('div', {class: 'actions'}, send, el('span', {class: 'muted'}, `${method.toUpperCase()} from this browser`)),
                    out);
    form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        let url = path.replace(/\{([^}]+)\}/g, (_, n) => inputs[`path:${n}`].value.trim());
        const q = new URLSearchParams();
        for (const f of fields)
            if (f.where === 'query' && inputs[`query:${f.name}`].value.trim())
                q.set(f.name, inputs[`query:${f.name}`].value.trim());
        if ([...q].length)
            url += `?${q}`;
        const headers = {};
        if (tokenInput.value.trim())
            headers.Authorization = `Bearer ${tokenInput.value.trim()}`;
        if (bodyInput && bodyInput.value.trim())
            headers['Content-Type'] = bodyType;
        send.disabled = true;
        const t0 = performance.now();
        try {
            const resp = await fetch(url, {method: method.toUpperCase(), headers,
                                           body: bodyInput && bodyInput.value.trim() ? bodyInput.value : undefined});
            const text = await resp.text();
            const ms = performance.now() - t0;
            let shown = text;
            try {
                shown = JSON.stringify(JSON.parse(text), null, 1);
            } catch {
                // not JSON: shown as it came
            }
            out.replaceChildren(
                el('div', {class: 'status', 'data-status': resp.status},
                   el('span', {class: `badge ${resp.ok ? 'succeeded' : 'failed'}`}, String(resp.status)),
                   ` ${resp.statusText} · ${ms.toFixed(0)} ms · ${resp.headers.get('Content-Type') || 'no content'} · `,
                   el('code', {}, `${method.toUpperCase()} ${url}`)),
                el('pre', {class: 'body', style: 'max-height:360px;overflow:auto;background:#eef1f5;padding:8px;font-size:12px'},
                   shown.length > 200000 ? `${shown.slice(0, 200000)}\n… (${shown.length} characters)` : shown));
        } catch (e) {
            out.replaceChildren(errorBox(e, 'the request failed'));
        } finally {
            send.disabled = false;
        }
    });
    return form;
}

function operation(doc, method, path, op) {
    const params = (op.parameters || []).map((p) => deref(doc, p));
    const responses = Object.entries(op.responses || {}).map(([status, r]) => {
        const resp = deref(doc, r);
        return el('div', {class: 'response', 'data-status': status, style: 'margin:4px 0'},
                  el('b', {}, status), ` ${resp.description || ''}`, schemaBlock(doc, resp.content));
    });
    const id = `${method}-${path}`;
    const details = el('details', {class: 'op', 'data-op': `${method.toUpperCase()} ${path}`,
                                   style: 'background:var(--card);border:1px solid var(--line);border-radius:6px;padding:6px 10px;margin:6px 0'},
        el('summary', {style: 'color:var(--fg)'},
           el('span', {class: 'badge', style: `background:${METHOD_COLORS[method]};min-width:52px;text-align:center`}, method.toUpperCase()),
           ' ', el('code', {}, path), ' ', op.summary || '',
           el('span', {class: 'muted'}, ` · role ${op['x-role'] || 'none'}`)));
    let filled = false;
    details.addEventListener('toggle', () => { // drawn when first opened: 47 operations stay cheap to list
        if (!details.open || filled)
            return;
        filled = true;
        details.append(el('div', {class: 'op-body'},
            op.description ? el('p', {}, op.description) : null,
            params.length ? el('h3', {style: 'font-size:14px'}, 'Parameters') : null,
            params.length ? el('ul', {}, params.map((p) => el('li', {}, el('code', {}, p.name), ` (${p.in}${p.required ? ', required' : ''}) `,
                                                                el('span', {style: 'color:#6a1b9a'}, p.schema ? typeText(doc, p.schema) : ''),
                                                                p.description ? el('span', {class: 'muted'}, ` · ${p.description}`) : null))) : null,
            op.requestBody ? el('h3', {style: 'font-size:14px'}, 'Request body') : null,
            op.requestBody ? schemaBlock(doc, deref(doc, op.requestBody).content) : null,
            el('h3', {style: 'font-size:14px'}, 'Answers'), responses,
            el('h3', {style: 'font-size:14px'}, 'Try it'), tryIt(doc, method, path, op)));
    });
    details.id = id;
    return details;
}

export async function render(root, route) {
    root.append(el('h1', {}, 'API'));
    let doc;
    try {
        doc = await api('/api/v1/openapi.json');
    } catch (e) {
        root.append(errorBox(e, 'the OpenAPI document'));
        return;
    }
    const filter = el('input', {name: 'filter', value: route.query.get('q') || '', placeholder: 'method, path, tag or words',
                                style: 'width:320px'});
    const list = el('div', {class: 'ops'});
    const ops = [];
    for (const [path, item] of Object.entries(doc.paths))
        for (const m of METHODS)
            if (item[m])
                ops.push({method: m, path, op: item[m], tag: (item[m].tags || ['other'])[0]});
    const tags = [...new Set(ops.map((o) => o.tag))];
    const draw = () => {
        const q = filter.value.trim().toLowerCase();
        const shown = ops.filter((o) => !q || `${o.method} ${o.path} ${o.tag} ${o.op.summary || ''}`.toLowerCase().includes(q));
        const sections = tags.map((t) => [t, shown.filter((o) => o.tag === t)]).filter(([, mine]) => mine.length)
            .map(([t, mine]) => el('section', {'data-tag': t}, el('h2', {}, t), mine.map((o) => operation(doc, o.method, o.path, o.op))));
        list.replaceChildren(...(sections.length ? sections : [empty(`no operation matches "${filter.value}"`)]));
    };
    filter.addEventListener('input', () => {
        setQuery('api', {q: filter.value.trim() || null});
        draw();
    });
    const s = doc.components?.securitySchemes || {};
    root.append(
        el('p', {}, `${doc.info?.title || 'ppbench'} API ${doc.info?.version || ''} · OpenAPI ${doc.openapi} · ${ops.length} operations · `,
           el('a', {href: '/api/v1/openapi.json'}, 'the document'), ' · ',
           Object.keys(s).length ? 'authentication: Authorization: Bearer <token> (the token saved at the top right, or one entered per request)' : ''),
        el('div', {class: 'filters'}, el('label', {class: 'filter'}, 'filter', filter),
           el('a', {href: pageHref('fleet')}, 'back to the fleet')),
        list);
    draw();
}
