"""A query that is several questions is recalled as several queries.

"我表姐在哪儿上班？另外，读书会的规模是多少？" or "Where does Ann work? And when is the
fair?" asks two things; one embedding of the whole leans to whichever half dominates it,
and the other half's evidence falls out of the first few items. Each question is ranked on
its own and the plans are merged on one scale: each question's scores are divided by its
own best, so every question's best evidence leads together. Only a query made of questions
alone is split: a question inside chat ("…不知道会怎样呢？我真正想问的是…") keeps the
whole query, since its other sentences say which question counts.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import TypeVar

from graph.recall import Candidates, SummaryCandidate
from service.ranking import Plan, Ranked

T = TypeVar("T")

MAX_QUESTIONS = 4
_ASKS = "？?"
_ENDS = "。！!；;"  # a sentence that ends so is no question: the query is not questions alone


def questions(query: str) -> list[str]:
    """The questions of a query made of two or more questions alone, else [query]."""
    parts: list[str] = []
    start = 0
    for i, ch in enumerate(query):
        if ch in _ASKS:
            parts.append(query[start : i + 1].strip())
            start = i + 1
    tail = query[start:].strip()
    parts = [p for p in parts if sum(ch.isalnum() for ch in p) >= 2]
    if len(parts) < 2 or len(parts) > MAX_QUESTIONS or any(c.isalnum() for c in tail):
        return [query]
    if any(ch in _ENDS or _sentence_stop(p) for p in parts for ch in p):
        return [query]
    return parts


def _sentence_stop(part: str) -> bool:
    """A Latin full stop that ends a sentence inside a part ("I moved. Where…?")."""
    return any(
        part[i] == "." and part[i + 1] == " " and part[i + 2 : i + 3].isupper()
        for i in range(len(part) - 2)
    )


def merged_candidates(cs: list[Candidates]) -> Candidates:
    """One set of candidates holding those of every question (each once; the recent turns
    are the same for each)."""
    first, rest = cs[0], cs[1:]
    out = first
    for c in rest:
        out = Candidates(
            summaries=_union(out.summaries, c.summaries, lambda s: s.summary_id),
            summary_hits=_union(out.summary_hits, c.summary_hits, lambda h: h.id),
            fact_hits=_union(out.fact_hits, c.fact_hits, lambda f: f.id),
            fact_near=_union(out.fact_near, c.fact_near, lambda f: f.id),
            messages=_union(out.messages, c.messages, lambda m: m.message_id),
            message_hits=_union(out.message_hits, c.message_hits, lambda m: m.message_id),
            recent=out.recent,
            details={**c.details, **out.details},
            corrected={**c.corrected, **out.corrected},
            entity_facts=_union(out.entity_facts, c.entity_facts, lambda f: f.id),
        )
    return out


def _union(a: tuple[T, ...], b: tuple[T, ...], key: Callable[[T], Hashable]) -> tuple[T, ...]:
    seen = {key(x) for x in a}
    return a + tuple(x for x in b if key(x) not in seen)


def merged_plan(plans: list[Plan]) -> Plan:
    """The plans of each question as one: every score divided by its question's best
    evidence score (its `own` by its best own), an item found by several questions keeps
    its best; the Summaries likewise. One plan is itself."""
    if len(plans) == 1:
        return plans[0]
    best: dict[str, Ranked] = {}
    summaries: dict[str, tuple[Ranked, SummaryCandidate]] = {}
    for p in plans:
        top = max((r.score for r in p.evidence), default=0.0) or 1.0
        top_own = max((r.own for r in p.evidence), default=0.0) or 1.0
        for r in p.evidence:
            n = replace(r, score=r.score / top, own=r.own / top_own)
            if r.id not in best or n.score > best[r.id].score:
                best[r.id] = n
        for r, s in p.summaries:
            n = replace(r, score=r.score / top)
            if s.summary_id not in summaries or n.score > summaries[s.summary_id][0].score:
                summaries[s.summary_id] = (n, s)
    evidence = sorted(best.values(), key=lambda r: (-r.score, r.id))
    shown = sorted(summaries.values(), key=lambda t: -t[0].score)
    n_shown = max(len(p.summaries) for p in plans)
    window = next((p.window for p in plans if p.window is not None), None)
    return Plan(shown[:n_shown], evidence, plans[0].limit, window)
