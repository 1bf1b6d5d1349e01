"""Scenario evaluation: memory formation and recall on the open scenario suite, over GraphQL.

Each case's messages are sent in order in one `addMessages` (sync processing, waited for;
`--per-message` sends one call per message), under the case's user, with its session, role,
event type, page, metadata and timestamp; then `deleteMessage` when the case asks for it;
then every check of the suite's README (../shared/data/scenarios/README.md) runs on what
GraphQL gives back: `facts` (inactive included), `topics` with their Summaries (every
version), `memory(...)`.
The check semantics live in bench/scenario_checks.py; the project's own suite
(bench/data/blind-scenarios.json) adds checks of Fact subjects and cited turns, which read
Fact.subject when the API has it (found by introspection).

Message ids are sent as "<user>:<id>" (ids are unique per tenant, every case has an m1).
All selected cases are ingested before any check runs, so isolation checks see the other
users' data; `--case` also ingests the cases whose users its isolation checks query.
Each user is erased (`forgetUser`) before its case is ingested, so reruns against the same
Neo4j start clean.

Usage: python -m bench.scenarios --scenarios ../shared/data/scenarios/dev.json \
    --out bench/results/scenarios.json [--case NAME ...] [--verbose]
       python -m bench.scenarios --scenarios bench/data/blind-scenarios.json \
    --out bench/results/blind-scenarios.json --bolt-port 7763 --http-port 7764
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from bench.common import (
    RESULTS,
    Neo4jHandle,
    add_neo4j_args,
    log,
    machine,
    run_bench,
    settings_for,
    table,
)
from bench.scenario_checks import (
    FAMILIES,
    KINDS,
    CheckResult,
    FactView,
    Observed,
    RecallView,
    SummaryView,
    TopicView,
    run_checks,
)
from core.settings import ROOT

DEFAULT_SCENARIOS = ROOT.parent / "shared" / "data" / "scenarios" / "dev.json"
TENANT = "eval-scenarios"
KEY = "eval-scenarios-key"
PAGE = 100  # at most GUMEM_MAX_LIST_SIZE (100 by default)

ADD = """mutation($m: [MessageInput!]!) {
  addMessages(messages: $m) { accepted duplicates processed errors { index field reason } } }"""
DELETE = """mutation($id: ID!) { deleteMessage(id: $id) { counts } }"""
FORGET = """mutation($u: String!) { forgetUser(userId: $u) { remaining } }"""
FACTS = """query($u: String!, $o: Int!) {
  facts(userId: $u, includeInactive: true, limit: 100, offset: $o) {
    id content validity sourceMessageIds%s } }"""
# Fact.subject (issue 37) is read when the API has it: its name, and its kind and aliases
# when its type has them; without it every Fact counts as the user's.
TYPE_FIELDS = """query($t: String!) { __type(name: $t) {
  fields { name type { name kind ofType { name kind ofType { name } } } } } }"""
SUBJECT_FIELDS = ("name", "kind", "aliases")
TOPICS = """query($u: String!, $o: Int!) {
  topics(userId: $u, limit: 100, offset: $o) {
    name factCount summaryCount
    summaries(includeInactive: true) { id content topic validity } } }"""
MEMORY = """query($u: String!, $q: String!, $now: DateTime) {
  memory(userId: $u, query: $q, now: $now) {
    formattedContext
    shortTermContext { id sourceMessageIds sourceFactIds }
    midTermContext { id sourceMessageIds sourceFactIds }
    longTermUserContext { id sourceMessageIds sourceFactIds } } }"""


class Client:
    """GraphQL as an agent calls it: the real app, one tenant, errors raised."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def __call__(self, document: str, **variables: Any) -> dict[str, Any]:
        r = await self.http.post(
            "/graphql",
            json={"query": document, "variables": variables},
            headers={"Authorization": f"Bearer {KEY}"},
        )
        r.raise_for_status()
        body = r.json()
        if body.get("errors"):
            raise RuntimeError(f"GraphQL errors: {body['errors'][:2]}")
        data: dict[str, Any] = body["data"]
        return data


def message_id(case: dict[str, Any], mid: str) -> str:
    return f"{case['user']}:{mid}"


def message_input(case: dict[str, Any], m: dict[str, Any]) -> dict[str, Any]:
    out = {
        "id": message_id(case, m["id"]),
        "userId": case["user"],
        "sessionId": m.get("session", "s1"),
        "role": m.get("role", "user"),
        "content": m["content"],
        "timestamp": m["timestamp"],
    }
    if m.get("event_type"):
        out["eventType"] = m["event_type"]
    if m.get("page") is not None:
        out["page"] = m["page"]
    if m.get("metadata") is not None:
        out["metadata"] = m["metadata"]
    return out


async def ingest(gql: Client, case: dict[str, Any], per_message: bool = False) -> None:
    await gql(FORGET, u=case["user"])
    msgs = [message_input(case, m) for m in case["messages"]]
    for batch in [[m] for m in msgs] if per_message else [msgs]:
        res = (await gql(ADD, m=batch))["addMessages"]
        if res["errors"] or len(res["accepted"]) != len(batch):
            raise RuntimeError(f"{case['name']}: a message was not accepted: {res}")
    if case.get("delete_message"):
        await gql(DELETE, id=message_id(case, case["delete_message"]))


def _type_name(t: dict[str, Any] | None) -> str | None:
    while t is not None and t.get("name") is None:
        t = t.get("ofType")
    return None if t is None else t.get("name")


async def subject_selection(gql: Client) -> str:
    """The selection of Fact.subject this API serves ("" when it has none)."""
    fact = (await gql(TYPE_FIELDS, t="Fact"))["__type"]
    field = next((f for f in fact["fields"] if f["name"] == "subject"), None)
    kind = _type_name(field["type"]) if field else None
    if kind is None:
        return ""
    subject = (await gql(TYPE_FIELDS, t=kind))["__type"]
    names = [f["name"] for f in subject["fields"] or [] if f["name"] in SUBJECT_FIELDS]
    return f" subject {{ {' '.join(names)} }}" if "name" in names else ""


def fact_view(f: dict[str, Any], prefix: str) -> FactView:
    subject = f.get("subject") or {}
    return FactView(
        f["id"],
        f["content"],
        f["validity"],
        tuple(s.removeprefix(prefix) for s in f["sourceMessageIds"]),
        subject.get("name"),
        subject.get("kind"),
        tuple(subject.get("aliases") or ()),
    )


async def paged(gql: Client, document: str, field: str, user: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    while True:
        page = (await gql(document, u=user, o=len(rows)))[field]
        rows += page
        if len(page) < PAGE:
            return rows


async def recall_view(gql: Client, user: str, query: str, now: str | None) -> RecallView:
    r = (await gql(MEMORY, u=user, q=query, now=now))["memory"]
    ids: set[str] = set()
    for section in ("shortTermContext", "midTermContext", "longTermUserContext"):
        for it in r[section]:
            ids.update([it["id"], *it["sourceMessageIds"], *it["sourceFactIds"]])
    return RecallView(query, r["formattedContext"], tuple(sorted(ids)))


async def observe(gql: Client, case: dict[str, Any], subject: str = "") -> Observed:
    user = case["user"]
    prefix = f"{user}:"
    facts = [fact_view(f, prefix) for f in await paged(gql, FACTS % subject, "facts", user)]
    topics = await paged(gql, TOPICS, "topics", user)
    checks = case["checks"]
    seen = Observed(
        facts=facts,
        topics=[TopicView(t["name"], t["factCount"], t["summaryCount"]) for t in topics],
        summaries=[
            SummaryView(s["id"], s["content"], s["topic"], s["validity"])
            for t in topics
            for s in t["summaries"]
        ],
        subjects_read=bool(subject),
    )
    for spec in checks.get("recall", []):
        seen.recalls.append(await recall_view(gql, user, spec["query"], spec.get("now")))
    for spec in checks.get("recall_as_user", []):
        seen.as_user.append(await recall_view(gql, spec["user"], spec["query"], spec.get("now")))
    return seen


def load_cases(path: Path, names: list[str] | None) -> tuple[list[dict[str, Any]], list[Any]]:
    """(cases to check, cases to ingest: those plus the users their isolation checks ask)."""
    cases: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cases"]
    if not names:
        return cases, cases
    by_name = {c["name"]: c for c in cases}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise SystemExit(f"unknown case(s) {unknown}; known: {', '.join(by_name)}")
    chosen = [by_name[n] for n in names]
    asked = {s["user"] for c in chosen for s in c["checks"].get("recall_as_user", [])}
    extra = [c for c in cases if c["user"] in asked and c not in chosen]
    return chosen, chosen + extra


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    from api.app import create_app
    from service.runtime import Runtime

    info = machine()
    chosen, to_ingest = load_cases(Path(args.scenarios), args.case)
    settings = settings_for(h, api_keys=SecretStr(f"{KEY}={TENANT}"), process_mode="sync")
    rt = Runtime(settings)
    await rt.start()
    app = create_app(settings, rt)
    results: list[dict[str, Any]] = []
    t_ingest = t_check = 0.0
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://eval", timeout=None
        ) as http:
            gql = Client(http)
            t0 = time.perf_counter()
            for n, case in enumerate(to_ingest, 1):
                await ingest(gql, case, args.per_message)
                log(f"ingested {n}/{len(to_ingest)} {case['name']}")
            await rt.memory.drain(settings.process_timeout_s)  # nothing should be left
            t_ingest = time.perf_counter() - t0
            t0 = time.perf_counter()
            subject = await subject_selection(gql)
            if not subject:
                log("this API has no Fact.subject: every Fact counts as the user's")
            for case in chosen:
                seen = await observe(gql, case, subject)
                checks = run_checks(case["checks"], seen)
                results.append(case_result(case, checks, seen))
            t_check = time.perf_counter() - t0
    finally:
        await rt.close()
    return {
        **info,
        "benchmark": "scenarios",
        "scenarios": str(args.scenarios),
        "ingest": "one addMessages per message" if args.per_message else "one addMessages per case",
        "ingest_s": round(t_ingest, 1),
        "check_s": round(t_check, 1),
        "totals": totals(results),
        "cases": results,
        "verbose": args.verbose,
    }


def case_result(case: dict[str, Any], checks: list[CheckResult], seen: Observed) -> dict[str, Any]:
    return {
        "name": case["name"],
        "lang": case["lang"],
        "domain": case["domain"],
        "phenomena": case["phenomena"],
        "passed": all(c.passed for c in checks),
        "checks_passed": sum(c.passed for c in checks),
        "checks_total": len(checks),
        "checks": [asdict(c) for c in checks],
        "facts": [asdict(f) for f in seen.facts],
        "subjects_read": seen.subjects_read,
        "topics": [asdict(t) for t in seen.topics],
        "summaries": [asdict(s) for s in seen.summaries],
        "recalls": [{"query": r.query, "context": r.context} for r in seen.recalls],
        "recalls_as_user": [{"query": r.query, "context": r.context} for r in seen.as_user],
    }


def _share(passed: int, total: int) -> str:
    return f"{passed}/{total}"


def totals(results: list[dict[str, Any]]) -> dict[str, Any]:
    kinds: dict[str, list[int]] = {k: [0, 0] for k in KINDS}
    queries = [0, 0]
    tags: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    families: dict[str, list[int]] = {f: [0, 0] for f in FAMILIES}
    for r in results:
        for c in r["checks"]:
            kinds[c["kind"]][0] += c["passed"]
            kinds[c["kind"]][1] += 1
        by_query: dict[int, bool] = {}
        for c in r["checks"]:
            if c["kind"] == "recall":
                by_query[c["query"]] = by_query.get(c["query"], True) and c["passed"]
        queries[0] += sum(by_query.values())
        queries[1] += len(by_query)
        for tag in r["phenomena"]:
            tags[tag][0] += r["passed"]
            tags[tag][1] += 1
        for fam, members in FAMILIES.items():
            if set(members) & set(r["phenomena"]):
                families[fam][0] += r["passed"]
                families[fam][1] += 1
    return {
        "cases_passed": sum(r["passed"] for r in results),
        "cases": len(results),
        "checks_passed": sum(r["checks_passed"] for r in results),
        "checks": sum(r["checks_total"] for r in results),
        "by_kind": {k: v for k, v in kinds.items() if v[1]},
        "recall_queries": queries,
        "by_family": {k: v for k, v in families.items() if v[1]},
        "by_phenomenon": dict(sorted(tags.items(), key=lambda kv: -kv[1][1])),
    }


def report(res: dict[str, Any]) -> str:
    cases = res["cases"]
    t = res["totals"]
    out = []
    if res.get("verbose"):
        out += [dump(c) for c in cases]
    out.append(
        table(
            ["case", "lang", "result", "checks"],
            [
                [
                    c["name"],
                    c["lang"],
                    "pass" if c["passed"] else "FAIL",
                    _share(c["checks_passed"], c["checks_total"]),
                ]
                for c in cases
            ],
            title=f"Scenarios ({res['scenarios']}, commit {res['commit']})",
        )
    )
    out.append("")
    out.append(
        f"cases passed {t['cases_passed']}/{t['cases']}, checks passed "
        f"{t['checks_passed']}/{t['checks']}, recall queries passed "
        f"{_share(*t['recall_queries'])}"
    )
    out.append(
        table(
            ["check kind", "passed"],
            [[k, _share(*v)] for k, v in t["by_kind"].items()],
        )
    )
    out.append("")
    out.append(
        table(
            ["phenomenon family", "cases passed"],
            [[f"{k} ({', '.join(FAMILIES[k])})", _share(*v)] for k, v in t["by_family"].items()],
        )
    )
    out.append("")
    out.append(
        table(
            ["phenomenon tag", "cases passed"],
            [[k, _share(*v)] for k, v in t["by_phenomenon"].items()],
        )
    )
    failures = [c for c in cases if any(not k["passed"] for k in c["checks"])]
    if failures:
        out += ["", "Failed checks:"]
        for c in failures:
            out.append(f"{c['name']}:")
            for k in c["checks"]:
                if not k["passed"]:
                    out.append(f"  [{k['kind']}] expected {k['expected']}; found {k['found']}")
    out.append(f"\ningest {res['ingest_s']}s, checks {res['check_s']}s")
    return "\n".join(out)


def _about(f: dict[str, Any]) -> str:
    return f"  (about {f['subject']})" if f.get("subject") else ""


def dump(c: dict[str, Any]) -> str:
    """--verbose: everything read back for one case."""
    lines = [f"=== {c['name']} ({c['lang']}, {c['domain']})", "facts:"]
    lines += [
        f"  {f['validity']:<10} {f['content']}  [{', '.join(f['sources'])}]{_about(f)}"
        for f in c["facts"]
    ]
    lines.append("topics: " + ", ".join(f"{t['name']} ({t['facts']})" for t in c["topics"]))
    lines.append("summaries:")
    lines += [f"  {s['validity']:<10} ({s['topic']}) {s['content']}" for s in c["summaries"]]
    for r in c["recalls"] + c["recalls_as_user"]:
        lines.append(f"memory('{r['query']}'):")
        lines += [f"  | {ln}" for ln in r["context"].splitlines()]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--scenarios", type=Path, default=DEFAULT_SCENARIOS)
    p.add_argument("--out", default=str(RESULTS / "scenarios.json"))
    p.add_argument("--case", action="append", help="only this case (repeatable)")
    p.add_argument(
        "--per-message",
        action="store_true",
        help="one addMessages per message (default: one per case, in order, as issue 16 measured)",
    )
    p.add_argument("--verbose", action="store_true", help="print every case's facts and contexts")
    add_neo4j_args(p)
    p.set_defaults(bolt_port=7700, http_port=7487)
    args = p.parse_args()
    if not args.scenarios.is_file():
        raise SystemExit(
            f"scenarios file not found: {args.scenarios} (make eval-scenarios SCENARIOS=…)"
        )
    run_bench(args, run, report)


if __name__ == "__main__":
    main()
