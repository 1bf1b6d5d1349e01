"""A batch's drafts as the Facts they become (ids, merged parts, Chinese changes carried
into what they replace) and the Messages recall does not rank: pure functions of the
pipeline (service/pipeline.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from corrections.carry import carry_over_en, carry_quantity
from extract.chat.zh_grammar import carry_over
from extract.types import Extraction, FactDraft, MessageRecord, Rejection
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
    """Each change that keeps the rest, worded as the Fact it replaces with the changed
    part put in ("X改成在Y吃了，日期不变" over "…在Z订了一桌" → "…在Y订了一桌"; "same time, but
    at Y instead" over "… at X on Saturday" → "… at Y on Saturday"), and each updated
    quantity inside a Fact of several attributes with the rest carried ("budget is now 6k"
    over "3 bedrooms, budget 5k a month" → "3 bedrooms, budget 6k a month")."""
    texts: dict[str, str] = {}
    for n in new:
        old = contents.get(replaces.get(n.fact_id, ""))
        keep = carry_over if n.draft.lang == "zh" else carry_over_en
        text = old and (
            keep(n.draft.content, old) or carry_quantity(n.draft.content, old, n.draft.value)
        )
        if text:
            texts[n.fact_id] = text
    return reworded(new, texts)


def reworded(new: list[NewFact], contents: dict[str, str]) -> list[NewFact]:
    """The new Facts whose id ``contents`` names, worded as given (a return to an earlier
    value worded as that value was: corrections/conflicts.restorations); same ids and
    sources."""
    out = []
    for n in new:
        text = contents.get(n.fact_id)
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


def rejected_messages(chat: list[MessageRecord], extraction: Extraction) -> dict[str, str]:
    """Chat Messages that gave no Fact and whose every clause extraction rejected as not
    the user's memory (small talk, a question, a third party, a hypothetical), with the
    first reason: recall still ranks them (the evidence floor), weighted lower and labelled
    with it. A clause rejected only for lack of a recognized statement is not a verdict."""
    gave = {i for f in extraction.facts for i in f.source_message_ids}
    verdicts: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    for r in extraction.rejections:
        for i in r.source_message_ids:
            verdicts[i] = verdicts.get(i, True) and _not_memory(r)
            reasons.setdefault(i, r.reason)
    return {
        m.message_id: reasons[m.message_id]
        for m in chat
        if verdicts.get(m.message_id) and m.message_id not in gave
    }
