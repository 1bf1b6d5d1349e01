"""Query Memory: the context built from recall's plan (service/ranking.py ranks what
graph/ found): the best Summary first, then the other shown Summaries, Facts and Messages
by fused score, the user's lasting memories and the recent conversation (`assemble`).
Recall's names are all here: the ranking's and the context's records are re-exported.
"""

from __future__ import annotations

from datetime import datetime

from graph.recall import Candidates, MessageCandidate, SummaryCandidate
from graph.records import StoredFact
from service.context import (
    Item,
    Recall,
    author,
    dated,
    format_context,
    inline,
    named_author,
)
from service.others import WORDS, asks_about_others, speaks_of_self
from service.ranking import (
    FLOOR_SHOW,
    RRF_K,
    Plan,
    Ranked,
    Weights,
    left_aside,
    own_candidates,
    own_memory,
    past_window,
    plan,
    rank_evidence,
    rank_summaries,
)
from text.lang import detect_lang
from text.time_window import Window

__all__ = [
    "RRF_K",
    "Item",
    "Recall",
    "Weights",
    "asks_about_others",
    "assemble",
    "dated",
    "format_context",
    "inline",
    "own_candidates",
    "own_memory",
    "past_window",
    "plan",
    "rank_evidence",
    "rank_summaries",
]

LONG_TERM_KINDS = ("identity", "preference")


def assemble(
    p: Plan,
    c: Candidates,
    facts: dict[str, StoredFact],
    query: str,
    weights: Weights,
    user_id: str = "",
) -> Recall:
    """Build the context from a plan (pure; graph/ fetched `facts`, those of p.fact_ids(),
    and the candidates' `corrected`: the Messages whose Facts were superseded, with their
    replacements).

    The best Summary leads (recall enters through Topic → Summary); the other shown
    Summaries, Facts and Messages follow by fused score. A Message already cited by a
    chosen Fact is not repeated; a Message with a superseded value says so on its line, and
    each line of the recent conversation names its author (`user_id` tells the user's own
    turns from another speaker's)."""
    corrected = c.corrected
    lang = detect_lang(query)
    best = max((r.own for r in p.evidence), default=0.0)
    rejected = {m.message_id for m in [*c.messages, *c.message_hits] if m.rejected}
    mine = any(not r.aside for r in p.evidence)  # else what is aside is all there is
    first = speaks_of_self(query)
    # the evidence that bears on the query: what could be shown within the limit
    score_of = {r.id: r.score for r in p.evidence[: p.limit]}
    backs = {f: s.summary_id for _r, s in p.summaries for f in s.source_facts}
    messages = {m.message_id: m for m in [*c.messages, *c.message_hits]}
    mid: list[Item] = []
    cited: set[str] = set()
    lead, rest = p.summaries[:1], p.summaries[1:]
    queue: list[tuple[Ranked, SummaryCandidate | None]] = [*lead]
    queue += sorted([*rest, *((r, None) for r in p.evidence)], key=lambda t: -t[0].score)
    for r, s in queue:
        if len(mid) >= p.limit:
            break
        below = r.kind == "message" and r.id in rejected and r.own < FLOOR_SHOW * best
        if s is None and (below or (mine and left_aside(r, best, first))):
            continue
        if s is not None:
            mid.append(_summary_item(s, r, p.window, score_of))
        elif r.kind == "fact" and r.id in facts:
            f = facts[r.id]
            sources = [m.message_id for m in f.sources]
            why = f"close to the query ({r.why()})"
            if r.about:
                why = f"about {r.about} named in the query; {why}"
            if r.id in backs:
                why = f"supports summary {backs[r.id]}; {why}"
            mid.append(
                Item(
                    r.id,
                    "fact",
                    f.content,
                    round(r.score, 4),
                    why,
                    topic=f.topic,
                    confidence=f.confidence,
                    timestamp=f.time_end,
                    period=_period(f.time_start, f.time_end),
                    source_message_ids=sources,
                )
            )
            cited.update(sources)
        elif r.kind == "message" and (r.id not in cited or _says_more(r.id, messages, facts)):
            m = messages[r.id]
            cited.add(r.id)
            mid.append(
                Item(
                    r.id,
                    "message",
                    m.content,
                    round(r.score, 4),
                    _message_why(m, r),
                    timestamp=m.timestamp,
                    period=(m.timestamp, m.timestamp),
                    source_message_ids=[r.id],
                    replaced_by=list(corrected.get(r.id, ())),
                    superseded=r.id in corrected,
                    author=named_author(m),
                )
            )
    shown = {it.id for it in mid}
    long_term = [
        _of_summary(s, r.score, f"lasting {s.kind} memory", list(s.source_facts))
        for r, s in rank_summaries(c, None, weights, query)
        if s.kind in LONG_TERM_KINDS and s.summary_id not in shown and not r.aside
    ][:3]
    short = [
        Item(
            m.message_id,
            "message",
            m.content,
            1.0,
            "recent in this session",
            timestamp=m.timestamp,
            source_message_ids=[m.message_id],
            replaced_by=list(corrected.get(m.message_id, ())),
            superseded=m.message_id in corrected,
            author=author(m, user_id, lang),
        )
        for m in reversed(c.recent)
    ]
    formatted = format_context(query, short, mid, long_term, lang)
    return Recall(query, short, mid, long_term, formatted, p.window)


SAYS_MORE = 1.0  # a cited turn is shown too when over this share of its words is not in its Fact


def _words(text: str) -> set[str]:
    """Content-bearing words of a text: Latin-script words of three letters or more, numbers,
    and each CJK character (lower-cased)."""
    return {w for w in WORDS.findall(text.lower()) if len(w) >= 3 or w.isdigit() or w > "\u3000"}


def _says_more(
    mid: str, messages: dict[str, MessageCandidate], facts: dict[str, StoredFact]
) -> bool:
    """Whether a turn a shown Fact cites says more than what was extracted from it: the Facts
    that cite it keep at most half of its words, so its own words are shown too."""
    if SAYS_MORE >= 1.0:
        return False
    said = _words(messages[mid].content)
    kept: set[str] = set()
    for f in facts.values():
        if any(m.message_id == mid for m in f.sources):
            kept |= _words(f.content)
    return bool(said) and len(said - kept) > SAYS_MORE * len(said)


def _message_why(m: MessageCandidate, r: Ranked) -> str:
    why = f"message close to the query ({r.why()})"
    if m.rejected:
        why += f"; said, not extracted: {m.rejected_reason or 'no memory found in it'}"
    return why


def _period(start: datetime | None, end: datetime | None) -> tuple[datetime, datetime] | None:
    return (start, end) if start is not None and end is not None else None


def _summary_item(
    s: SummaryCandidate, r: Ranked, w: Window | None, score_of: dict[str, float]
) -> Item:
    why = f"topic '{s.topic}' matches the query ({r.why()})"
    if w is not None:
        why += f"; within '{w.cue}'"
    # its evidence, the facts closest to the query first (stable: stored order otherwise)
    ordered = sorted(s.source_facts, key=lambda f: -score_of.get(f, 0.0))
    return _of_summary(s, r.score, why, ordered, [f for f in ordered if f in score_of])


def _of_summary(
    s: SummaryCandidate, score: float, why: str, facts: list[str], relevant: list[str] | None = None
) -> Item:
    """A Summary as a recalled item, backed by `facts` (`relevant`: those the query bears on)."""
    return Item(
        s.summary_id,
        "summary",
        s.content,
        round(score, 4),
        why,
        topic=s.topic,
        confidence=s.confidence,
        timestamp=s.event_end,
        source_fact_ids=facts,
        relevant_fact_ids=relevant or [],
    )
