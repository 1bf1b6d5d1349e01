"""The checks of the scenario suite (../shared/data/scenarios/README.md), as pure functions.

They judge what was read back from GUMem (Facts, Summaries, Topics, recall contexts) and
never touch a database, so tests/unit/test_scenario_checks.py runs them on hand-made data.

Semantics, as the suite's README defines them:
- every match is a case-insensitive substring match;
- "active" means the Fact's validity is ``active``; any other validity (superseded) is
  "non-active";
- a recall's ``must`` strings must all be in its ``formattedContext``; a ``must_not`` string
  may appear only on lines that explicitly mark their value as superseded (MARKERS);
- ``recall_as_user`` contexts must hold none of their ``must_not`` strings, no tolerance.

One refinement, stated in the report: the ids the context cites (``[f_…]``, message ids) are
blanked before matching, so a short value such as "24" is never found inside a hex id.

A check is one unit of the suite's count: one inner list of ``fact_has``, one string of
``no_active_fact_has`` / ``superseded_fact_has`` / ``no_summary_has``, one ``must`` or
``must_not`` string of a recall, one ``recall_as_user`` entry, one numeric bound.

Checks of the project's own suite (bench/data/blind-scenarios.json) beyond the README's, for
the memory of the user's world (issue 37); each entry is one unit:
- ``fact_about: [{subject, has}]``: an ACTIVE fact holding every ``has`` string whose subject
  (its name or an alias) holds ``subject`` (a string, or a list of alternatives);
- ``no_user_fact_has: [s]``: no ACTIVE fact whose subject is the user holds s (a statement
  about someone else is never the user's own); a fact without a subject is the user's;
- ``fact_cites: [{has, sources}]``: an ACTIVE fact holding every ``has`` string cites every
  message of ``sources`` (an answer cites the assistant's question too);
- a recall's ``before: [[a, b]]``: its context holds a, above the first b when b is there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Words that mark a context line's value as superseded (the suite's README).
MARKERS = ("superseded", "outdated", "replaced by", "已更正", "已过时", "已失效")

# Phenomenon tags grouped into the families the issue reports on.
FAMILIES: dict[str, tuple[str, ...]] = {
    "corrections": (
        "correction",
        "flip-flop",
        "partial-correction",
        "quantity-update",
        "life-change-retraction",
    ),
    "splitting/bound-info": ("bound-info", "multi-fact"),
    "non-facts": (
        "third-party",
        "hypothetical",
        "question",
        "greeting-smalltalk",
        "assistant-suggestion",
    ),
    "behaviour": ("behaviour-evidence", "single-click-view", "dwell", "tool-call"),
    "temporal": ("relative-time", "long-term-recall"),
    "deletion": ("deletion",),
    "isolation": ("isolation",),
    "topics": ("topic-fragmentation",),
    # issue 37: the user's world (other people's facts, answers, choices, every turn found)
    "world": (
        "household-constraint",
        "people-attributes",
        "qa-binding",
        "option-choice",
        "evidence-floor",
    ),
}

KINDS = (
    "fact_has",
    "no_active_fact_has",
    "superseded_fact_has",
    "max_active_facts",
    "facts_from_m1_at_least",
    "no_summary_has",
    "topic_count_at_most",
    "recall",
    "recall_as_user",
    "fact_about",
    "no_user_fact_has",
    "fact_cites",
)

# Subject names that mean the user (a fact whose subject is none of the user's world).
USER_SUBJECTS = ("user", "the user", "用户", "我", "me", "i")


@dataclass(frozen=True)
class FactView:
    id: str
    content: str
    validity: str
    sources: tuple[str, ...] = ()  # message ids as the case names them (m1, m2 …)
    subject: str | None = None  # the subject's name; None: the user (or no subject read)
    subject_kind: str | None = None
    subject_aliases: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.validity == "active"

    @property
    def about_user(self) -> bool:
        if self.subject is None or (self.subject_kind or "").casefold() == "user":
            return True
        return self.subject.strip().casefold() in USER_SUBJECTS

    def subject_names(self) -> tuple[str, ...]:
        return () if self.about_user else (self.subject or "", *self.subject_aliases)


@dataclass(frozen=True)
class SummaryView:
    id: str
    content: str
    topic: str
    validity: str = "active"


@dataclass(frozen=True)
class TopicView:
    name: str
    facts: int = 0
    summaries: int = 0


@dataclass(frozen=True)
class RecallView:
    query: str
    context: str
    ids: tuple[str, ...] = ()  # ids the context cites (blanked before matching)


@dataclass
class Observed:
    """Everything read back for one case after ingestion (and deletion)."""

    facts: list[FactView] = field(default_factory=list)
    summaries: list[SummaryView] = field(default_factory=list)
    topics: list[TopicView] = field(default_factory=list)
    recalls: list[RecallView] = field(default_factory=list)  # one per `recall` entry
    as_user: list[RecallView] = field(default_factory=list)  # one per `recall_as_user` entry
    subjects_read: bool = True  # False: the API gives no Fact.subject (checks say so)


@dataclass(frozen=True)
class CheckResult:
    kind: str
    passed: bool
    expected: str
    found: str = ""
    query: int | None = None  # index of the recall entry, for recall checks


def has(text: str, sub: str) -> bool:
    return sub.casefold() in text.casefold()


def marks_superseded(line: str) -> bool:
    return any(has(line, m) for m in MARKERS)


def blank_ids(context: str, ids: Iterable[str]) -> str:
    for i in sorted({i for i in ids if i}, key=len, reverse=True):
        context = context.replace(i, "#")
    return context


def current_lines(context: str, sub: str, ids: Iterable[str] = ()) -> list[str]:
    """Distinct lines holding `sub` (ids blanked) that do not mark it as superseded."""
    out: list[str] = []
    for ln in context.splitlines():
        text = blank_ids(ln, ids)
        if has(text, sub) and not marks_superseded(text) and ln.strip() not in out:
            out.append(ln.strip())
    return out


def _facts(facts: Iterable[FactView], limit: int = 0) -> str:
    items = [f.content for f in facts]
    if limit and len(items) > limit:
        items = [*items[:limit], f"… {len(items) - limit} more"]
    return "; ".join(f"'{c}'" for c in items) or "none"


def fact_has(facts: Sequence[FactView], groups: Sequence[Sequence[str]]) -> list[CheckResult]:
    active = [f for f in facts if f.active]
    out = []
    for group in groups:
        ok = any(all(has(f.content, s) for s in group) for f in active)
        found = ""
        if not ok:
            partial = [f for f in active if any(has(f.content, s) for s in group)]
            inactive = [f for f in facts if not f.active and all(has(f.content, s) for s in group)]
            found = f"active facts with part of it: {_facts(partial)}"
            if inactive:
                found += f"; only non-active facts have it all: {_facts(inactive)}"
            found += f"; active facts: {_facts(active, 12)}"
        out.append(CheckResult("fact_has", ok, f"an active fact with all of {list(group)}", found))
    return out


def no_active_fact_has(facts: Sequence[FactView], subs: Sequence[str]) -> list[CheckResult]:
    out = []
    for s in subs:
        hits = [f for f in facts if f.active and has(f.content, s)]
        out.append(
            CheckResult(
                "no_active_fact_has",
                not hits,
                f"no active fact with '{s}'",
                f"active: {_facts(hits)}" if hits else "",
            )
        )
    return out


def superseded_fact_has(facts: Sequence[FactView], subs: Sequence[str]) -> list[CheckResult]:
    out = []
    for s in subs:
        ok = any(not f.active and has(f.content, s) for f in facts)
        found = ""
        if not ok:
            still = [f for f in facts if f.active and has(f.content, s)]
            found = (
                f"still active: {_facts(still)}" if still else f"no fact at all has '{s}'"
            ) + f"; non-active facts: {_facts([f for f in facts if not f.active])}"
        out.append(CheckResult("superseded_fact_has", ok, f"a superseded fact with '{s}'", found))
    return out


def max_active_facts(facts: Sequence[FactView], n: int) -> list[CheckResult]:
    active = [f for f in facts if f.active]
    ok = len(active) <= n
    found = "" if ok else f"{len(active)} active: {_facts(active)}"
    return [CheckResult("max_active_facts", ok, f"at most {n} active facts", found)]


def facts_from_m1_at_least(facts: Sequence[FactView], n: int) -> list[CheckResult]:
    cited = [f for f in facts if "m1" in f.sources]
    ok = len(cited) >= n
    found = "" if ok else f"{len(cited)}: {_facts(cited)}"
    return [CheckResult("facts_from_m1_at_least", ok, f"at least {n} facts citing m1", found)]


def no_summary_has(summaries: Sequence[SummaryView], subs: Sequence[str]) -> list[CheckResult]:
    out = []
    for s in subs:
        hits = [x for x in summaries if has(x.content, s)]
        found = "; ".join(f"{x.validity} summary '{x.content}'" for x in hits)
        out.append(CheckResult("no_summary_has", not hits, f"no summary with '{s}'", found))
    return out


def topic_count_at_most(topics: Sequence[TopicView], n: int) -> list[CheckResult]:
    ok = len(topics) <= n
    found = (
        ""
        if ok
        else f"{len(topics)} topics: " + ", ".join(f"'{t.name}' ({t.facts} facts)" for t in topics)
    )
    return [CheckResult("topic_count_at_most", ok, f"at most {n} topics", found)]


def recall(
    view: RecallView, must: Sequence[str], must_not: Sequence[str], index: int
) -> list[CheckResult]:
    text = blank_ids(view.context, view.ids)
    q = f"memory('{view.query}')"
    out = []
    for s in must:
        ok = has(text, s)
        found = "" if ok else f"context: {_oneline(view.context)}"
        if not ok and has(view.context, s):
            found = "only inside a cited id; " + found
        out.append(CheckResult("recall", ok, f"{q} contains '{s}'", found, index))
    for s in must_not:
        bad = current_lines(view.context, s, view.ids)
        found = "shown as current on: " + " | ".join(bad) if bad else ""
        out.append(
            CheckResult("recall", not bad, f"{q} never shows '{s}' as current", found, index)
        )
    return out


def recall_as_user(view: RecallView, user: str, must_not: Sequence[str]) -> list[CheckResult]:
    text = blank_ids(view.context, view.ids)
    hits = [s for s in must_not if has(text, s)]
    found = ""
    if hits:
        lines = [
            ln.strip()
            for ln in view.context.splitlines()
            if any(has(blank_ids(ln, view.ids), s) for s in hits)
        ]
        found = f"{hits} on: " + " | ".join(lines)
    expected = f"memory('{view.query}') as {user} has none of {list(must_not)}"
    return [CheckResult("recall_as_user", not hits, expected, found)]


def _alternatives(subject: str | Sequence[str]) -> list[str]:
    return [subject] if isinstance(subject, str) else list(subject)


def _subject(f: FactView) -> str:
    return "the user" if f.about_user else "/".join(f.subject_names())


def _with_subjects(facts: Iterable[FactView]) -> str:
    return "; ".join(f"'{f.content}' (about {_subject(f)})" for f in facts) or "none"


def fact_about(
    facts: Sequence[FactView], specs: Sequence[dict[str, Any]], subjects_read: bool = True
) -> list[CheckResult]:
    """Per spec, an active fact with every `has` string whose subject names `subject`."""
    out = []
    for spec in specs:
        names, group = _alternatives(spec["subject"]), list(spec["has"])
        holding = [f for f in facts if f.active and all(has(f.content, s) for s in group)]
        ok = any(any(has(n, want) for n in f.subject_names() for want in names) for f in holding)
        expected = f"an active fact with all of {group} about {' or '.join(names)}"
        found = ""
        if not ok:
            found = f"active facts with all of it: {_with_subjects(holding)}"
            if not subjects_read:
                found = "the API gives no Fact.subject; " + found
        out.append(CheckResult("fact_about", ok, expected, found))
    return out


def no_user_fact_has(facts: Sequence[FactView], subs: Sequence[str]) -> list[CheckResult]:
    """No active fact about the user holds s (another person's fact is not the user's)."""
    out = []
    for s in subs:
        hits = [f for f in facts if f.active and f.about_user and has(f.content, s)]
        found = f"the user's: {_facts(hits)}" if hits else ""
        out.append(
            CheckResult(
                "no_user_fact_has", not hits, f"no active fact of the user with '{s}'", found
            )
        )
    return out


def fact_cites(facts: Sequence[FactView], specs: Sequence[dict[str, Any]]) -> list[CheckResult]:
    """Per spec, an active fact with every `has` string citing every message of `sources`."""
    out = []
    for spec in specs:
        group, wanted = list(spec["has"]), list(spec["sources"])
        holding = [f for f in facts if f.active and all(has(f.content, s) for s in group)]
        ok = any(set(wanted) <= set(f.sources) for f in holding)
        found = ""
        if not ok:
            found = "; ".join(f"'{f.content}' cites {list(f.sources)}" for f in holding)
            found = f"active facts with all of it: {found or 'none'}"
        expected = f"an active fact with all of {group} citing {wanted}"
        out.append(CheckResult("fact_cites", ok, expected, found))
    return out


def recall_order(view: RecallView, pairs: Sequence[Sequence[str]], index: int) -> list[CheckResult]:
    """Per [a, b]: the context holds a, above the first b when b is there at all."""
    text = blank_ids(view.context, view.ids).casefold()
    q = f"memory('{view.query}')"
    out = []
    for a, b in pairs:
        at, bt = text.find(a.casefold()), text.find(b.casefold())
        ok = at >= 0 and (bt < 0 or at < bt)
        found = "" if ok else f"context: {_oneline(view.context)}"
        out.append(CheckResult("recall", ok, f"{q} shows '{a}' above '{b}'", found, index))
    return out


def _oneline(context: str, limit: int = 600) -> str:
    flat = " | ".join(ln.strip() for ln in context.splitlines() if ln.strip())
    return flat if len(flat) <= limit else flat[:limit] + " …"


def run_checks(checks: dict[str, Any], seen: Observed) -> list[CheckResult]:
    """Every check of one case on what was read back, in the suite's order of kinds."""
    unknown = set(checks) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown check kinds: {sorted(unknown)}")
    out: list[CheckResult] = []
    if "fact_has" in checks:
        out += fact_has(seen.facts, checks["fact_has"])
    if "no_active_fact_has" in checks:
        out += no_active_fact_has(seen.facts, checks["no_active_fact_has"])
    if "superseded_fact_has" in checks:
        out += superseded_fact_has(seen.facts, checks["superseded_fact_has"])
    if "max_active_facts" in checks:
        out += max_active_facts(seen.facts, checks["max_active_facts"])
    if "facts_from_m1_at_least" in checks:
        out += facts_from_m1_at_least(seen.facts, checks["facts_from_m1_at_least"])
    if "no_summary_has" in checks:
        out += no_summary_has(seen.summaries, checks["no_summary_has"])
    if "topic_count_at_most" in checks:
        out += topic_count_at_most(seen.topics, checks["topic_count_at_most"])
    for i, (spec, view) in enumerate(zip(checks.get("recall", []), seen.recalls, strict=True)):
        out += recall(view, spec.get("must", []), spec.get("must_not", []), i)
        out += recall_order(view, spec.get("before", []), i)
    for spec, view in zip(checks.get("recall_as_user", []), seen.as_user, strict=True):
        out += recall_as_user(view, spec["user"], spec.get("must_not", []))
    if "fact_about" in checks:
        out += fact_about(seen.facts, checks["fact_about"], seen.subjects_read)
    if "no_user_fact_has" in checks:
        out += no_user_fact_has(seen.facts, checks["no_user_fact_has"])
    if "fact_cites" in checks:
        out += fact_cites(seen.facts, checks["fact_cites"])
    return out
