#!/usr/bin/python3
"""Validates recorded answers of a real ppbenchd against the OpenAPI document (run by tests/service/openapi.sh).

    openapi_check.py DOC ROUTES CALLS

DOC is docs/openapi.json (OpenAPI 3.1: its schemas are JSON Schema 2020-12); ROUTES the output of `ppbenchd
routes` ("METHOD PATH" lines); CALLS one line per request, tab-separated: method, path with query, status,
content type, the file holding the answer's body, the request's content type (empty: no body) and the file
holding the request's body. Prints one PASS or FAIL line per check, as tests/lib/check.sh does:
- the document describes every route, and every operation's request body and answers (a schema for each JSON
  answer, a media type for every other one);
- each request that succeeded (2xx) matches the document's request body for its content type;
- each answer matches: its status is documented (or a "default" answer), its content type is one the document
  gives for that status, and a JSON body validates against the schema (Debian's python3-jsonschema,
  Draft202012Validator, $refs resolved in the document); a 204 has no body;
- each route was called at least once, and with a success (2xx) unless the document lists no success for it,
  or its path starts with one of OPENAPI_UNREACHABLE's space-separated prefixes (a service behind the route that
  this run could not start, such as the Slurm cluster): then a SKIP line says its success went unchecked.
"""
import json
import os
import re
import sys

import jsonschema
from jsonschema import Draft202012Validator

METHODS = ("get", "put", "post", "delete", "patch")


def out(ok, name, why=""):
    print(f"PASS {name}" if ok else f"FAIL {name}: {why}")


def template_regex(path):
    return re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$")


def main():
    doc_path, routes_path, calls_path = sys.argv[1:4]
    with open(doc_path) as f:
        doc = json.load(f)
    resolver = jsonschema.RefResolver(base_uri="", referrer=doc)

    def validator(schema):
        return Draft202012Validator(schema, resolver=resolver)

    out(doc.get("openapi", "").startswith("3.1."), "openapi: the document is OpenAPI 3.1 (JSON Schema 2020-12)",
        f"openapi is {doc.get('openapi')!r}")
    ops = {(m.upper(), p): op for p, item in doc["paths"].items() for m, op in item.items() if m in METHODS}
    with open(routes_path) as f:
        routes = {tuple(line.split()) for line in f if line.strip()}
    out(routes == set(ops), f"openapi: the document's operations are the served routes ({len(routes)})",
        f"served only: {sorted(routes - set(ops))}; documented only: {sorted(set(ops) - routes)}")

    # Every operation describes its body and its answers.
    missing = []
    for (method, path), op in sorted(ops.items()):
        rb = op.get("requestBody")
        if rb:
            rb = resolve(doc, rb)
            for mt, media in rb.get("content", {}).items():
                if "schema" not in media:
                    missing.append(f"{method} {path} request {mt}")
        for status, resp in op.get("responses", {}).items():
            resp = resolve(doc, resp)
            content = resp.get("content")
            if status == "204":
                continue
            if not content:
                missing.append(f"{method} {path} {status}: no content")
                continue
            for mt, media in content.items():
                if "schema" not in media:
                    missing.append(f"{method} {path} {status} {mt}: no schema")
                else:
                    try:
                        Draft202012Validator.check_schema(media["schema"])
                    except jsonschema.SchemaError as e:
                        missing.append(f"{method} {path} {status} {mt}: invalid schema: {e.message}")
    out(not missing, "openapi: every request body and answer of every operation has a schema",
        "; ".join(missing[:12]))

    templates = sorted(((template_regex(p), p) for p in doc["paths"]), key=lambda t: t[1].count("{"))
    seen = {}
    unreachable = os.environ.get("OPENAPI_UNREACHABLE", "").split()
    with open(calls_path) as f:
        calls = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for method, target, status, ctype, body_file, req_ctype, req_file in calls:
        path = target.split("?", 1)[0]
        match = next((p for rx, p in templates if rx.match(path) and (method, p) in ops), None)
        if match is None:
            out(False, f"openapi: {method} {target}", "no operation of the document matches")
            continue
        errors = seen.setdefault((method, match), {"statuses": [], "errors": []})
        errors["statuses"].append(status)
        errs = check_answer(doc, validator, ops[(method, match)], status, ctype, body_file)
        if status.startswith("2"):
            errs += ["request: " + e for e in check_request(doc, validator, ops[(method, match)], req_ctype, req_file)]
        errors["errors"] += [f"{target} -> {status}: {e}" for e in errs]

    for (method, path), op in sorted(ops.items()):
        name = f"openapi: {method} {path}"
        got = seen.get((method, path))
        if not got:
            out(False, name, "not called by the test")
            continue
        documented_success = [s for s in op["responses"] if s.startswith("2")]
        called_success = [s for s in got["statuses"] if s.startswith("2")]
        if got["errors"]:
            out(False, name, "; ".join(got["errors"][:3]))
        elif documented_success and not called_success and any(path.startswith(u) for u in unreachable):
            print(f"SKIP {name}: its success answers: the service behind it is not here (its "
                  f"{', '.join(sorted(set(got['statuses'])))} checked)")
        elif documented_success and not called_success:
            out(False, name, f"never answered with a success (got {', '.join(got['statuses'])}), so its "
                f"documented {', '.join(documented_success)} went unchecked")
        else:
            out(True, f"{name}: {len(got['statuses'])} answers match the document "
                f"({', '.join(sorted(set(got['statuses'])))})")


def resolve(doc, node):
    while isinstance(node, dict) and "$ref" in node and len(node) == 1:
        ref = node["$ref"]
        assert ref.startswith("#/"), ref
        node = doc
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def check_request(doc, validator, op, ctype, body_file):
    rb = resolve(doc, op.get("requestBody", {}))
    if not ctype:
        return ["no body where the document requires one"] if rb.get("required") else []
    media = rb.get("content", {}).get(ctype)
    if media is None:
        return [f"content type {ctype} not documented for the request"]
    with open(body_file, "rb") as f:
        raw = f.read()
    if ctype != "application/json":
        return validate(validator, media["schema"], raw.decode("utf-8", "replace"))
    return validate(validator, media["schema"], json.loads(raw))


def check_answer(doc, validator, op, status, ctype, body_file):
    responses = op.get("responses", {})
    resp = responses.get(status) or responses.get("default")
    if resp is None:
        return [f"status {status} not documented"]
    resp = resolve(doc, resp)
    with open(body_file, "rb") as f:
        raw = f.read()
    content = resp.get("content", {})
    if status == "204" or not content:
        return [] if not raw else [f"a body where the document has none: {raw[:80]!r}"]
    mt = ctype.split(";", 1)[0].strip().lower()
    if mt not in content:
        return [f"content type {mt or '(none)'} not documented (documented: {', '.join(content)})"]
    schema = content[mt].get("schema")
    if mt != "application/json":
        return validate(validator, schema, raw.decode("utf-8", "replace"))
    try:
        body = json.loads(raw)
    except ValueError as e:
        return [f"not JSON: {e}"]
    return validate(validator, schema, body)


def validate(validator, schema, instance):
    errs = sorted(validator(schema).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:200]}" for e in errs[:3]]


if __name__ == "__main__":
    main()
