"""A batch's drafts as the Facts they become (ids, merged parts, Chinese changes carried
into what they replace) and the Messages recall does not rank: pure functions of the
pipeline (gumem/pipeline.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from extract.types import Extraction, FactDraft, MessageRecord, Rejection
from extract.zh_grammar import carry_over
from graph.fact_writes import NewFact
from graph.ids import stable_id


def fact_id(tenant: str, user_id: str, d: FactDraft) -> str:
    return stable_id("f", tenant, user_id, d.key, d.content)


def group_drafts(
    tenant: str, user_id: str, drafts: Iterable[FactDraft]
) -> dict[str, tuple[FactDraft, ...]]:
    """The batch's drafts by fact id: identical facts from several messages are one Fact."""
    out: dict[str, tuple[FactDraft, ...]] = {}
    for d in drafts:
        fid = fact_id(tenant, user_id, d)
        out[fid] = (*out.get(fid, ()), d)
    return out


def carried(
    new: list[NewFact], replaces: dict[str, str], contents: dict[str, str]
) -> list[NewFact]:
    """Each Chinese change that keeps the rest, worded as the Fact it replaces with the
    changed part put in ("X改成在Y吃了，日期不变" over "…在Z订了一桌" → "…在Y订了一桌")."""
    out = []
    for n in new:
        old = contents.get(replaces.get(n.fact_id, ""))
        text = carry_over(n.draft.content, old) if old and n.draft.lang == "zh" else None
        if text:
            n = replace(
                n,
                draft=replace(n.draft, content=text),
                parts=tuple(replace(p, content=text) for p in n.parts),
            )
        out.append(n)
    return out


def merge_drafts(parts: tuple[FactDraft, ...]) -> FactDraft:
    """Drafts of one Fact as one: the last one's wording, every source and anchor (in
    order of appearance) and the whole time range."""
    last = parts[-1]
    if len(parts) == 1:
        return last
    return replace(
        last,
        source_message_ids=tuple(dict.fromkeys(i for d in parts for i in d.source_message_ids)),
        anchors=tuple(dict.fromkeys(a for d in parts for a in d.anchors)),
        entities=tuple(dict.fromkeys(e for d in parts for e in d.entities)),
        labels=tuple(dict.fromkeys(x for d in parts for x in d.labels)),
        time_start=min(d.time_start for d in parts),
        time_end=max(d.time_end for d in parts),
    )


# Rejections that say what a clause is (not merely that extraction found nothing in it):
# chit-chat, someone else's statement, a hypothetical, another speaker's turn.
_NOT_MEMORY = (
    "greeting",
    "thanks",
    "acknowledgement",
    "small talk",
    "about someone else",
    "about the other party",
    "addressed to the other party",
    "hypothetical",
    "a wish about someone else",
    "said by another speaker",
)


def _not_memory(r: Rejection) -> bool:
    if r.reason.startswith("question to the agent"):  # only a question that is one
        return r.text.rstrip().endswith(("?", "？"))
    return r.reason.startswith(_NOT_MEMORY)


def rejected_messages(chat: list[MessageRecord], extraction: Extraction) -> set[str]:
    """Chat Messages that gave no Fact and whose every clause extraction rejected as not
    the user's memory (small talk, a question, a third party, a hypothetical): recall does
    not rank them. A clause rejected only for lack of a recognized statement keeps its
    Message rankable, since that may be a statement extraction missed."""
    gave = {i for f in extraction.facts for i in f.source_message_ids}
    verdicts: dict[str, bool] = {}
    for r in extraction.rejections:
        for i in r.source_message_ids:
            verdicts[i] = verdicts.get(i, True) and _not_memory(r)
    return {m.message_id for m in chat if verdicts.get(m.message_id) and m.message_id not in gave}
