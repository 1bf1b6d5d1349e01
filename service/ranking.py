"""Recall's ranking: what graph/ found, in the query's time window, on one scale, and the
plan of what recall shows (`plan`), before the Facts are fetched and the context is
assembled (service/recall.py).

Ranking is weighted reciprocal-rank fusion: each candidate list gives a node
``weight / (RRF_K + rank)``. Facts and Messages share one dense list (cosine to the query)
and one full-text list (a Message is embedded and searched with its author's name), and a
Fact and the turn it cites add to each other's score; Summaries have their own (Summary
and Topic cosine, Summary full-text), scaled by ``summary_weight``, their status and their
retrieval boost, and a shown Summary lists the Facts that bear on the query. Time
decay acts through the maintenance statuses (deprioritized, archived), not as a factor
here, so an old but relevant memory is still found. Ranks, not raw scores, are fused
because the embedding model's cosines crowd into a narrow band.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

from consolidation.decay import rank_factor
from graph.recall import Candidates, MessageCandidate, SummaryCandidate
from service.others import (
    aside_of,
    asks_how_many,
    others_scales,
    rejected_scales,
    same_subject,
    speaks_of_self,
    subject_of,
    subjects,
)
from text.time_window import Window

RRF_K = 20
MAX_SUMMARIES = 3
# The evidence floor: a user's turn that gave no Fact because extraction judged it no memory
# (small talk, a question, a hypothetical) is still ranked, at this share of its score: an
# extraction miss never becomes a recall miss, and a turn that did give a Fact leads a tie.
REJECTED_WEIGHT = 0.8
# A statement about someone else that gave no Fact (their taste, an anecdote) is their
# matter: ranked well below the user's own memory unless the query names them.
OTHERS_WEIGHT = 0.3
# Such a turn, or a Fact or Summary about someone else the query does not name, is shown
# only when its own weighted match reaches this share of the best own match (before a Fact
# and its turn add up): the floor lifts what matches the query, it does not pad a small
# memory's context.
FLOOR_SHOW = 0.5


@dataclass(frozen=True)
class Weights:
    dense: float = 1.0
    lexical: float = 1.0
    summary: float = 0.8
    # how much a Fact and the turn it cites add to each other's score: 0, they are two views
    # of one statement, so a statement that gave a Fact does not outrank one that gave none
    turn: float = 0.0
    session: float = 0.1  # how much a session's best evidence adds to its turns (0: off)
    rejected: float = REJECTED_WEIGHT  # a turn extraction found no memory in: its score scale
    others: float = OTHERS_WEIGHT  # one about someone else the query does not name
    entity: float = 1.0  # the list of Facts about an entity the query names


@dataclass(frozen=True)
class Ranked:
    """One ranked candidate: its fused score and its rank in each list (None: absent)."""

    score: float
    kind: str
    id: str
    dense: int | None
    lexical: int | None
    entity: int | None = None  # its rank among the Facts about an entity the query names
    about: str | None = None  # that entity's name
    own: float = 0.0  # its fused score from its own match alone (no turn or session gain)
    outside: bool = False  # outside the query's time window: shown after what is inside
    aside: bool = False  # about someone else the query neither names nor asks about

    def why(self) -> str:
        parts = [
            f"{name} #{r}"
            for name, r in (
                ("dense", self.dense),
                ("full-text", self.lexical),
                ("entity", self.entity),
            )
            if r is not None
        ]
        if self.outside:
            parts.append("outside the asked time")
        return ", ".join(parts)


@dataclass
class Plan:
    """What recall will show before the Facts are fetched."""

    summaries: list[tuple[Ranked, SummaryCandidate]]  # the Summaries shown, best first
    evidence: list[Ranked]  # Facts and Messages in the window, best first
    limit: int
    window: Window | None

    def fact_ids(self) -> list[str]:
        """The Facts to fetch: enough for the limit once Messages they cite are skipped."""
        return [r.id for r in self.evidence if r.kind == "fact"][: 2 * self.limit]


def _overlaps(start: datetime | None, end: datetime | None, w: Window | None) -> bool:
    if w is None:
        return True
    if start is None or end is None:
        return False
    return start < w.end and end >= w.start


def past_window(w: Window | None, now: datetime) -> Window | None:
    """The window recall restricts to: a cue about a past time ("yesterday", "上周", "last
    month"). A window still open at `now` ("this week", "tonight", "今天") asks about the
    present, where every standing memory counts, so it restricts nothing."""
    return w if w is not None and w.end <= now else None


def _ranks(ids: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in ids:
        out.setdefault(i, len(out) + 1)
    return out


def _fuse(
    kind_of: dict[str, str],
    dense: dict[str, int],
    lexical: dict[str, int],
    weights: Weights,
    scale: dict[str, float] | None = None,
) -> list[Ranked]:
    out = []
    for i, kind in kind_of.items():
        d, lx = dense.get(i), lexical.get(i)
        score = (weights.dense / (RRF_K + d) if d else 0.0) + (
            weights.lexical / (RRF_K + lx) if lx else 0.0
        )
        weighted = score * (scale or {}).get(i, 1.0)
        out.append(Ranked(weighted, kind, i, d, lx, own=weighted))
    out.sort(key=lambda r: (-r.score, r.id))
    return out


def rank_summaries(
    c: Candidates, w: Window | None, weights: Weights, query: str = ""
) -> list[tuple[Ranked, SummaryCandidate]]:
    """The user's recallable Summaries in the window, best first; one about someone else a
    query about the user's own matters does not name weighs `weights.others`."""
    rows = {
        s.summary_id: s
        for s in c.summaries
        if _overlaps(s.event_start, s.event_end, w)
        and rank_factor(s.memory_status or "active", _boost(s)) > 0
    }
    by_cos = sorted(rows.values(), key=lambda s: (-_cos(s), s.summary_id))
    dense = _ranks(s.summary_id for s in by_cos)
    hits = sorted(c.summary_hits, key=lambda h: (-h.score, h.id))
    lexical = _ranks(h.id for h in hits if h.id in rows)
    is_aside = aside_of(query)
    aside = {i for i, s in rows.items() if is_aside(s.about)}
    scale = {
        i: weights.summary
        * rank_factor(s.memory_status or "active", _boost(s))
        * (weights.others if i in aside else 1.0)
        for i, s in rows.items()
    }
    ranked = _fuse(dict.fromkeys(rows, "summary"), dense, lexical, weights, scale)
    return [(replace(r, aside=r.id in aside), rows[r.id]) for r in ranked]


def _cos(s: SummaryCandidate) -> float:
    return 0.7 * s.sv + 0.3 * s.tv


def _boost(s: SummaryCandidate) -> float:
    return float(s.retrieval_boost) if s.retrieval_boost is not None else 1.0


def _other_speaker(m: MessageCandidate, user_id: str) -> bool:
    speaker = m.metadata.get("speaker")
    return bool(speaker) and m.metadata.get("self") is not True and speaker != user_id


def own_memory(m: MessageCandidate, user_id: str) -> bool:
    """Whether a raw Message may be ranked as the user's memory: every chat turn of the
    user's own (not the assistant's, not another speaker's), whatever extraction made of
    it (a rejected one is weighted lower, `Weights.rejected`); a behaviour event only when
    a Fact cites it (one click or view is no preference)."""
    if m.role != "user" or _other_speaker(m, user_id):
        return False
    return m.event_type in (None, "message") or m.sourced


def own_candidates(c: Candidates, user_id: str) -> Candidates:
    """The candidates with only the user's own memory among the ranked Messages (the recent
    conversation keeps every turn; its lines name their author)."""
    return replace(
        c,
        messages=tuple(m for m in c.messages if own_memory(m, user_id)),
        message_hits=tuple(m for m in c.message_hits if own_memory(m, user_id)),
    )


def rank_evidence(
    c: Candidates, w: Window | None, weights: Weights, query: str = ""
) -> list[Ranked]:
    """Facts and Messages in the window on one scale, best first.

    A Fact and the turn it cites are two views of one statement: each adds `weights.turn`
    times the other's fused score (the best of them) to its own, so a turn found both as
    said and as extracted ranks above one found only once."""
    near = [(f.id, "fact", f.score, f.time_start, f.time_end) for f in c.fact_near]
    near += [(m.message_id, "message", m.score, m.timestamp, m.timestamp) for m in c.messages]
    hits = [(f.id, "fact", f.score, f.time_start, f.time_end) for f in c.fact_hits]
    hits += [(m.message_id, "message", m.score, m.timestamp, m.timestamp) for m in c.message_hits]
    named = [(f.id, "fact", f.score, f.time_start, f.time_end) for f in c.entity_facts]
    kind_of: dict[str, str] = {}
    for i, kind, _v, start, end in near + hits + named:
        if _overlaps(start, end, w):
            kind_of[i] = kind
    dense = _ranks(i for i, *_ in sorted(near, key=lambda t: (-t[2], t[0])) if i in kind_of)
    lexical = _ranks(i for i, *_ in sorted(hits, key=lambda t: (-t[2], t[0])) if i in kind_of)
    scale, named_turns = rejected_scales(
        [*c.messages, *c.message_hits], query, weights.rejected, weights.others
    )
    aside = others_scales(c, query, weights.others)
    scale.update({i: min(s, scale.get(i, 1.0)) for i, s in aside.items()})
    # by cosine (the dense list's score), as the entity's Facts are
    about_turns = {m.message_id: m.score for m in c.messages if m.message_id in named_turns}
    fused = _about_named(_fuse(kind_of, dense, lexical, weights, scale), c, weights, about_turns)
    fused = [replace(r, aside=True) if r.id in aside else r for r in fused]
    if not c.entity_facts and not asks_how_many(query):
        fused = _hop(fused, c, weights)
    cites: dict[str, list[str]] = {}
    for f in [*c.fact_near, *c.fact_hits, *c.entity_facts]:
        cites.setdefault(f.id, list(f.sources))
    own = {r.id: r.score for r in fused}
    other: dict[str, float] = defaultdict(float)
    for fid, sources in cites.items():
        for mid in sources:
            if fid in own and mid in own:
                other[fid] = max(other[fid], own[mid])
                other[mid] = max(other[mid], own[fid])
    out = [replace(r, score=r.score + weights.turn * other[r.id]) for r in fused]
    if weights.session:
        out = _session_sum(out, _sessions(c), weights.session)
    # on a tie the view that matched better on its own leads: a turn whose own words match
    # better than its Fact's is shown as said (the Fact may keep only one of its clauses)
    out.sort(key=lambda r: (-r.score, -own[r.id], r.kind != "fact", r.id))
    return out


def _about_named(
    fused: list[Ranked], c: Candidates, weights: Weights, turns: dict[str, float] | None = None
) -> list[Ranked]:
    """Facts about an entity of the user's world that the query names ("我表弟…", "dinner
    with my dad") as one more ranked list: each gains `weights.entity / (RRF_K + rank)`,
    by its cosine to the query among that entity's Facts, and says whom it is about. The
    turns about a person the query names that gave no Fact (`turns`: id -> cosine; their
    taste, an anecdote) rank in the same list: what was said about them is about them."""
    listed = [(f.score, f.id) for f in c.entity_facts] + [(s, i) for i, s in (turns or {}).items()]
    ranks = _ranks(i for _s, i in sorted(listed, key=lambda t: (-t[0], t[1])))
    about = {f.id: f.about for f in c.entity_facts}
    out = []
    for r in fused:
        n = ranks.get(r.id) if r.kind == "fact" or r.id in (turns or {}) else None
        if n is None:
            out.append(r)
            continue
        gain = weights.entity / (RRF_K + n)
        out.append(replace(r, score=r.score + gain, entity=n, about=about.get(r.id)))
    out.sort(key=lambda r: (-r.score, r.id))
    return out


FILL_BELOW = 0.999  # the best item outside the window scores just under the last inside
SESSION_TOP = 20  # how many of the best items speak for their session
SESSION_CAP = 1.0  # a session's gain is at most this share of the turn's own score


def _hop(fused: list[Ranked], c: Candidates, weights: Weights) -> list[Ranked]:
    """A query that names no entity but whose best evidence is about one ("那个在深圳工作的
    人，学历是什么？", "the event in May: where is it?") asks about that entity by a
    description: the other candidates about it rank in one more list, by cosine, as the
    Facts of a named entity do, so its other attributes are found in the same recall. Not
    for a count ("有几个人…", "how many"): that asks about a set."""
    who = subject_of(c, fused[0].id) if fused else None
    if who is None:
        return fused
    about = subjects(c)
    same = sorted(
        (r for r in fused if r.id in about and same_subject(about[r.id], who)),
        key=lambda r: (r.dense or len(fused) + 1, r.id),
    )
    ranks = {r.id: n for n, r in enumerate(same, 1)}
    out = [
        replace(r, score=r.score + weights.entity / (RRF_K + ranks[r.id]), entity=ranks[r.id])
        if r.id in ranks
        else r
        for r in fused
    ]
    out.sort(key=lambda r: (-r.score, r.id))
    return out


def _sessions(c: Candidates) -> dict[str, frozenset[str]]:
    """The sessions of each candidate: a Message's own, a Fact's sources'."""
    out = {f.id: frozenset(f.sessions) for f in [*c.fact_near, *c.fact_hits, *c.entity_facts]}
    for m in [*c.messages, *c.message_hits]:
        out[m.message_id] = frozenset([m.session_id] if m.session_id else [])
    return out


def _session_sum(
    ranked: list[Ranked], sessions: dict[str, frozenset[str]], w: float
) -> list[Ranked]:
    """Each raw turn gains `w` times the summed score of the best items of its session: a
    conversation that answers the query over several turns is one place to look, so its
    turns rise together. Facts stand alone (a preference told in another session is as
    current) and gain nothing; they count in their sources' sessions. The turns of a
    single-session memory all gain the same. The gain is capped by the turn's own score
    (`SESSION_CAP`): a session lifts the turns that match the query, it never carries one
    that does not past a turn that matches better (many short sessions, or noise in a
    session, would otherwise rank by session size)."""
    total: dict[str, float] = defaultdict(float)
    for r in sorted(ranked, key=lambda r: -r.score)[:SESSION_TOP]:
        for s in sessions.get(r.id, ()):
            total[s] += r.score
    out = []
    for r in ranked:
        mine = sessions.get(r.id) if r.kind == "message" else None
        gain = min(w * max(total[s] for s in mine), SESSION_CAP * r.score) if mine else 0.0
        out.append(replace(r, score=r.score + gain))
    return out


def left_aside(r: Ranked, best: float, first_person: bool) -> bool:
    """Whether memory about someone else the query does not name stays out of its context:
    always for a query in the first person (`speaks_of_self`: about the user's own
    matters), else when its own match is below `FLOOR_SHOW` of the best."""
    return r.aside and (first_person or r.own < FLOOR_SHOW * best)


def plan(c: Candidates, w: Window | None, limit: int, weights: Weights, query: str = "") -> Plan:
    ranked = rank_summaries(c, w, weights, query)
    best = max((r.own for r, _s in ranked), default=0.0)
    first = speaks_of_self(query)
    kept = [(r, s) for r, s in ranked if not left_aside(r, best, first)]
    shown = kept[: min(MAX_SUMMARIES, max(1, limit // 3))]
    return Plan(shown, _windowed(c, w, limit, weights, query), limit, w)


def _windowed(
    c: Candidates, w: Window | None, limit: int, weights: Weights, query: str
) -> list[Ranked]:
    """The evidence in the query's time window, best first; when it holds fewer than the
    limit, the best of the rest follow, after all of it and labelled: a time reading orders
    recall, it never empties it ("有几个人在五月份过生日" is about birthdays in May, not
    about what was said in May; a question after small talk about last night)."""
    inside = rank_evidence(c, w, weights, query)
    if w is None or len(inside) >= limit:
        return inside
    seen = {r.id for r in inside}
    rest = [r for r in rank_evidence(c, None, weights, query) if r.id not in seen]
    if not rest:
        return inside
    floor = min((r.score for r in inside), default=None)
    top = rest[0].score
    scale = floor * FILL_BELOW / top if floor is not None and top > 0 else 1.0
    return inside + [replace(r, score=r.score * scale, outside=True) for r in rest]
