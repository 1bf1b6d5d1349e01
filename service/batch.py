"""A user's batch made ready to write (service/pipeline.py runs it): bare attribute slots
named after the user's known qualified ones, the chat turns and the new Facts embedded (a
Fact that is its turn's only one reuses the turn's vector), and the implicit conflicts of
the new Facts with the user's stored active ones and the batch's earlier ones; and what
extraction gave for it (`Extracted`)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from core.settings import Settings
from corrections.conflicts import (
    Claim,
    candidate,
    changed_facts,
    conflicts,
    cosine,
    restorations,
)
from extract.chat.slots import resolve_slot
from extract.types import Extraction, FactDraft, MessageRecord, authored
from graph import fact_writes
from graph.db import Database
from service.drafts import carried, reworded
from service.models import Models

COSINE_MARGIN = 1e-3  # conflict candidates' embeddings are sent from this much below


@dataclass(frozen=True)
class Extracted:
    """What extraction gave for a batch: the facts, and the Messages that failed (why)."""

    extraction: Extraction
    failed: dict[str, str]  # message id → reason (a kind, never content)


async def resolve_slots(
    db: Database, tenant: str, user_id: str, drafts: list[FactDraft]
) -> list[FactDraft]:
    """Bare attribute slots named after the user's known qualified ones (resolve_slot)."""
    heads = sorted({d.slot for d in drafts if d.slot and ":" not in d.slot})
    if not heads:
        return drafts
    known = await fact_writes.active_slots(db, tenant, user_id, heads)
    known += [d.slot for d in drafts if d.slot and ":" in d.slot]
    out = []
    for d in drafts:
        slot = resolve_slot(d.slot, known) if d.slot else None
        if slot != d.slot:
            d = dataclasses.replace(d, slot=slot, key=f"{d.kind}:{slot}")
        out.append(d)
    return out


Vectors = dict[str, list[float]]


def embed(
    models: Models, parts: list[tuple[list[MessageRecord], dict[str, FactDraft]]]
) -> list[tuple[Vectors, Vectors]]:
    """For each part (a run's chat turns, its new Facts): the turns' vectors and the
    Facts'. Every part's turns in one model call, the Facts that need their own vector in
    one more; a Fact that is its turn's only Fact reuses the turn's vector."""
    texts = [authored(m.content, m.metadata) for chat, _ in parts for m in chat]
    vecs = iter(models.embedder.embed_passages(texts) if texts else [])
    out: list[tuple[Vectors, Vectors]] = []
    todo: list[tuple[Vectors, str, str]] = []  # (the part's Fact vectors, fact id, text)
    for chat, fresh in parts:
        msg_vec = {m.message_id: next(vecs) for m in chat}
        per_source: dict[str, int] = defaultdict(int)
        for d in fresh.values():
            for mid in d.source_message_ids:
                per_source[mid] += 1
        emb: Vectors = {}
        for fid, d in fresh.items():
            src = d.source_message_ids
            if len(src) == 1 and src[0] in msg_vec and per_source[src[0]] == 1:
                emb[fid] = msg_vec[src[0]]
            else:
                todo.append((emb, fid, d.content))
        out.append((msg_vec, emb))
    if todo:
        for (emb, fid, _), v in zip(
            todo, models.embedder.embed_passages([t for _, _, t in todo]), strict=True
        ):
            emb[fid] = v
    return out


async def find_conflicts(
    db: Database,
    settings: Settings,
    models: Models,
    tenant: str,
    user_id: str,
    new: list[fact_writes.NewFact],
    stamps: dict[str, datetime],
) -> tuple[dict[str, str], list[fact_writes.NewFact]]:
    """Implicit conflicts (corrections/conflicts.py): new fact id → the older Fact it
    replaces, among the user's stored active Facts and this batch's earlier ones; and
    the new Facts, a Chinese change that keeps the rest ("…，日期不变") carried into the
    content of the Fact it replaces (extract/chat/zh_grammar.carry_over)."""
    claims = [
        Claim(
            fact_id=n.fact_id,
            content=n.draft.content,
            kind=n.draft.kind,
            polarity=n.draft.polarity,
            slot=n.draft.slot,
            valid_from=min(
                (stamps[i] for i in n.draft.source_message_ids if i in stamps),
                default=n.draft.time_start,
            ),
            embedding=n.embedding,
            sources=n.draft.source_message_ids,
            correction=n.draft.cue,
            retracts=bool(n.draft.retracts),
            entities=tuple((e.name, e.type) for e in n.draft.entities),
        )
        for n in new
    ]
    vectors = [list(c.embedding) for c in claims if candidate(c) and c.embedding is not None]
    if not vectors:
        return {}, new
    stored = await fact_writes.conflict_candidates(
        db,
        tenant,
        user_id,
        settings.conflict_candidates,
        vectors,
        # a margin for the database's float arithmetic: conflicts() compares exactly
        min_cosine=settings.conflict_similarity - COSINE_MARGIN,
    )
    batch = [c.known() for c in claims]
    seen = {c.fact_id for c in claims}
    known = batch + [k for k in stored if k.fact_id not in seen]

    def value_similarity(text: str, others: list[str]) -> list[float]:
        vecs = models.embedder.embed_passages([text, *others])
        return [cosine(vecs[0], v) for v in vecs[1:]]

    replaces = await asyncio.to_thread(
        conflicts, claims, known, settings.conflict_similarity, value_similarity
    )
    changed = changed_facts(claims, known, replaces)
    new = carried(new, changed, {k.fact_id: k.content for k in known})
    # "back to A": the new Fact is worded as A was (it still cites its own Message)
    return replaces, reworded(new, restorations(claims, known, replaces))
