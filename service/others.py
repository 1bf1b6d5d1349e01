"""Memory about someone else in recall: the weight a turn extraction found no memory in is
ranked at (`rejected_scales`: in full when the query names the person it is about, lower
when the query is about the user's own matters), the same for Facts and Summaries about
someone else (`others_scales`, `aside_of`), and whether a query asks about someone
other than the user (`asks_about_others`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from extract.chat.subject import named_by
from graph.recall import Candidates, MessageCandidate
from packs import current as current_pack
from packs.pack import Pack
from text import rx

# the words of a text: each CJK character, each run of word characters
WORDS = rx.compile(r"[\u3400-\u9fff]|\w+")


_SOMEONE_ELSE = rx.compile(
    r"^about someone else \((?:我的|我|my |our |我们的|我们)?(?P<who>[^)]+)\)"
)


def rejected_about(m: MessageCandidate) -> str | None:
    """The person a turn's rejection says it is about ("about someone else (<who>)…")."""
    found = _SOMEONE_ELSE.match(m.rejected_reason or "")
    return found.group("who") if found is not None else None


def rejected_scales(
    msgs: Iterable[MessageCandidate], query: str, rejected: float, others: float
) -> tuple[dict[str, float], set[str]]:
    """The weight of each turn extraction found no memory in: `rejected`, or for a
    statement about someone else (another person's taste, an anecdote) in full when the
    query names that person, `rejected` when it asks about someone ("那个…的人",
    "who", "my colleagues"), else `others`: a query about the user's own matters
    is not answered with someone else's taste. Also the turns about a person the query
    names. The query is read once."""
    low = query.lower()
    words = frozenset(WORDS.findall(low))
    asked: bool | None = None
    out: dict[str, float] = {}
    named: set[str] = set()
    for m in msgs:
        if not m.rejected or m.message_id in out:
            continue
        who = rejected_about(m)
        if who is None:
            out[m.message_id] = rejected
        elif _names(who, low, words):
            out[m.message_id] = 1.0
            named.add(m.message_id)
        else:
            if asked is None:
                asked = asks_about_others(query)
            out[m.message_id] = rejected if asked else others
    return out, named


# closed-class words that point at a person other than the user
_OTHERS_ZH = ("人", "谁", "他", "她", "它")
_OTHERS_EN = frozenset(
    {"who", "whom", "whose", "he", "she", "him", "her", "his", "hers", "they", "them",
     "their", "someone", "somebody", "anyone", "anybody", "people", "person"}
)  # fmt: skip


def asks_about_others(query: str) -> bool:
    """Whether a query asks about someone other than the user: a person word (the pack's
    `people`, `household`) or a third-person pronoun, "人", "who"."""
    low = query.lower()
    words = set(WORDS.findall(low))
    if any(ch in low for ch in _OTHERS_ZH) or words & _OTHERS_EN:
        return True
    zh, en = _people_words(current_pack())
    return any(w in low for w in zh) or bool(words & en)


@lru_cache(maxsize=8)
def _people_words(pack: Pack) -> tuple[tuple[str, ...], frozenset[str]]:
    zh = (*pack.people.get("zh", ()), *pack.household.get("zh", ()))
    en = frozenset(w.lower() for w in (*pack.people.get("en", ()), *pack.household.get("en", ())))
    return zh, en


def aside_of(query: str) -> Callable[[str | None], bool]:
    """Whether memory about a person (by name; None: the user) is aside from `query`: the
    query neither names them nor asks about anyone. The query is read once."""
    if asks_about_others(query):
        return lambda _who: False
    low = query.lower()
    words = frozenset(WORDS.findall(low))
    return lambda who: who is not None and not _names(who, low, words)


def others_scales(c: Candidates, query: str, others: float) -> dict[str, float]:
    """The weight of the Facts about someone else that a query about the user's own matters
    neither names nor asks about, and of the turns only such Facts cite: `others` (a person's;
    the events, places and things of the user's world are the user's matters too). Someone
    else's attribute or routine is their matter; their constraint (an allergy, a condition)
    keeps its weight, as a plan of the user's may have to respect it, and so does what is
    known of someone who works for the user (their routine is the user's appointment)."""
    if not c.details:
        return {}
    aside = aside_of(query)
    named = {f.id for f in c.entity_facts}
    out: dict[str, float] = {}
    kept: set[str] = set()
    for fid, d in c.details.items():
        f = d.get("fact") or {}
        sources = f.get("source_message_ids") or ()
        who = _about(d) if f.get("subject_kind") == "person" else None
        if (
            not aside(who)
            or fid in named
            or f.get("kind") == "constraint"
            or named_by([who or ""], "jobs")
        ):
            kept.update(sources)
            continue
        out[fid] = others
        out.update(dict.fromkeys(sources, others))
    return {i: s for i, s in out.items() if i not in kept}


_FIRST_EN = frozenset({"i", "me", "my", "mine", "myself"})


def speaks_of_self(query: str) -> bool:
    """Whether a query is in the first person ("I", "my", "我"): it asks about the user's
    own matters, so memory about someone it does not name is not shown for it."""
    low = query.lower()
    return "我" in low or bool(frozenset(WORDS.findall(low)) & _FIRST_EN)


def _names(who: str, low: str, words: frozenset[str]) -> bool:
    """Whether a query (lower-cased, and its words) names a person the way a rejection did
    ("sister Anna", "同事老王"): one of its Latin words of three letters or more, or two
    adjacent CJK characters."""
    latin = [w for w in who.lower().split() if len(w) >= 3 and w.isascii()]
    han = "".join(ch for ch in who if ch > "\u3000")
    pairs = [han[i : i + 2] for i in range(len(han) - 1)]
    return any(w in words for w in latin) or any(p in low for p in pairs)


# a count asked: "几个", "多少位", "how many": a question about a set, not one entity
_HOW_MANY = rx.compile(r"(?:几|多少)[个位名次场种家件项条]|\bhow many\b")


def asks_how_many(query: str) -> bool:
    return _HOW_MANY.search(query.lower()) is not None


def _about(d: Mapping[str, Any]) -> str | None:
    """The subject of a candidate Fact as read (`Candidates.details`), when not the user."""
    f = d.get("fact") or {}
    mine = f.get("subject_kind", "user") == "user"
    return str(f["subject"]) if f.get("subject") and not mine else None


def subjects(c: Candidates) -> dict[str, str]:
    """Whom each candidate is about, when not the user: a Fact's subject (and the turns it
    cites), a turn's as its rejection names it."""
    out: dict[str, str] = {}
    for fid, d in c.details.items():
        if (who := _about(d)) is not None:
            out[fid] = who
            for mid in (d.get("fact") or {}).get("source_message_ids") or ():
                out.setdefault(mid, who)
    for m in [*c.messages, *c.message_hits]:
        if (who := rejected_about(m)) is not None:
            out.setdefault(m.message_id, who)
    return out


def subject_of(c: Candidates, item: str) -> str | None:
    """Whom one candidate is about, as `subjects` says, without reading them all."""
    if (d := c.details.get(item)) is not None:
        return _about(d)
    for d in c.details.values():
        cites = (d.get("fact") or {}).get("source_message_ids") or ()
        if item in cites and (who := _about(d)) is not None:
            return who
    m = next((m for m in [*c.messages, *c.message_hits] if m.message_id == item), None)
    return rejected_about(m) if m is not None else None


def same_subject(a: str, b: str) -> bool:
    """One subject as two mentions name it: equal, or one the other's start ("上司",
    "上司个子"; "Anna", "Anna Berg")."""
    a, b = a.lower(), b.lower()
    short, long = sorted((a, b), key=len)
    return bool(short) and long.startswith(short) and (len(short) >= 2 or short == long)
