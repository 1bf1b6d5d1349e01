"""A batch's Facts written: what the write step reads first (the ids already stored, the
Facts a correction may replace, the active slots), and the fenced write of the Facts,
their sources and supersessions, with the batch's Messages marked processed."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from corrections.conflicts import Known
from corrections.endings import ended_kinds, ended_things
from extract.types import FactDraft
from graph.db import Database, Params, native
from graph.entities import subject_kind, subject_row
from graph.fencing import UserWrite, write_one
from graph.ids import draft_row, entity_id
from graph.ingest import message_uid
from graph.queries import query, user_rows
from text import rx


async def existing_fact_ids(db: Database, tenant: str, ids: list[str]) -> set[str]:
    if not ids:
        return set()
    rows = await db.rows(query("existing_facts"), tenant=tenant, ids=ids)
    return {r["fact_id"] for r in rows}


@dataclass(frozen=True)
class NewFact:
    fact_id: str
    draft: FactDraft  # the drafts of `parts` merged
    embedding: list[float] | None
    parts: tuple[FactDraft, ...] = ()  # every draft of the batch with this id


def provenance(tenant: str, user_id: str, d: FactDraft) -> str:
    """One contribution to a Fact as stored (JSON): what a deletion must be able to undo."""
    return json.dumps(
        {
            "sources": list(d.source_message_ids),
            "anchors": list(d.anchors),
            "entities": [entity_id(tenant, user_id, e) for e in d.entities],
            "time_start": d.time_start.isoformat(),
            "time_end": d.time_end.isoformat(),
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )


def _fact_row(tenant: str, user_id: str, nf: NewFact) -> dict[str, Any]:
    d = nf.draft
    return {
        **draft_row(tenant, user_id, d),
        "fact_id": nf.fact_id,
        "key": d.key,
        "slot": d.slot,
        "value": d.value,
        "polarity": d.polarity,
        "explicit": d.explicit,
        "time_start": d.time_start,
        "time_end": d.time_end,
        "embedding": nf.embedding,
        "source_uids": [message_uid(tenant, i) for i in d.source_message_ids],
        "provenance": list(dict.fromkeys(provenance(tenant, user_id, p) for p in nf.parts or (d,))),
        "subject": subject_row(tenant, user_id, d, nf.parts),
        "subject_kind": subject_kind(d),
    }


async def write_facts(db: Database, *args: Any, **kw: Any) -> list[str]:
    """`facts_write`'s part written on its own (Fenced if the user moved)."""
    return await write_one(db, facts_write(*args, **kw))


def facts_write(
    tenant: str,
    user_id: str,
    facts: list[NewFact],
    processed: dict[str, list[float] | None],
    token: str | None,
    replaces: dict[str, str] | None = None,
    rejected: dict[str, str] | None = None,
    owner: str | None = None,
) -> UserWrite[list[str]]:
    """A user's part of a write transaction (graph.fencing.write_fenced): merge facts,
    supersede older ones on their slots (and the ones in `replaces`: new fact id → older
    fact id), mark messages processed (and `rejected`: those whose extraction gave nothing
    but rejections, with the reason); nothing at all (fenced) if a deletion or another
    worker moved the user since `token` was read. Returns the ids of the Facts it
    superseded."""
    rejected = rejected or {}
    rows = [_fact_row(tenant, user_id, f) for f in facts]
    rows.sort(key=lambda r: (r["time_end"], r["fact_id"]))
    # the older Facts the new ones replace, each kind by its query (each run when it has rows)
    supersessions = {
        "supersede_retracted": [
            {"fact_id": f.fact_id, "words": list(f.draft.retracts)}
            for f in facts
            if f.draft.retracts
        ],
        "supersede_ended": _ended_rows(facts),
        "supersede_conflicts": [{"fact_id": k, "old_id": v} for k, v in (replaces or {}).items()],
    }
    processed_rows = [
        {"uid": message_uid(tenant, i), "embedding": v, "rejected": rejected.get(i)}
        for i, v in processed.items()
    ]
    steps: list[tuple[str, Params | None]] = [("write_facts", {"facts": rows} if rows else None)]
    steps += [(name, {"rows": r} if r else None) for name, r in supersessions.items()]
    steps.append(("mark_processed", {"rows": processed_rows, "owner": owner}))
    steps.append(("mark_unconsolidated", {} if rows else None))

    def superseded(got: dict[str, list[dict[str, Any]]]) -> list[str]:
        return [
            s
            for name in ("write_facts", *supersessions)
            for r in got[name]
            for s in r["superseded"]
        ]

    return UserWrite(tenant, user_id, token, tuple(steps), superseded)


_LATIN = rx.compile(r"^[A-Za-z0-9][A-Za-z0-9'-]*$")


def _ended_rows(facts: list[NewFact]) -> list[dict[str, Any]]:
    """One row per thing a new Fact says left the user's life (corrections/endings.py): a
    Latin word matched whole, with its plural (a Java regex), a Chinese one as it is; and
    one per kind the user no longer has any of (every Fact about a subject of that kind)."""
    rows: list[dict[str, Any]] = []
    for f in facts:
        for word in ended_things(f.draft.content, f.draft.lang):
            pattern = None
            if _LATIN.match(word):
                pattern = rf"(?is).*\b{rx.escape(word)}(?:s|es)?\b.*"
            rows.append({"fact_id": f.fact_id, "word": word, "pattern": pattern, "kind": None})
        for kind in ended_kinds(f.draft.content, f.draft.lang):  # "no pets any more"
            rows.append({"fact_id": f.fact_id, "word": None, "pattern": None, "kind": kind})
    return rows


async def conflict_candidates(
    db: Database,
    tenant: str,
    user_id: str,
    limit: int,
    vectors: list[list[float]],
    min_cosine: float,
) -> list[Known]:
    """The user's latest active Facts with embeddings (what a correction may replace); the
    embedding only of those at least `min_cosine` near one of `vectors` (None for the
    others: too far to be replaced by any of them)."""
    rows = await user_rows(
        db,
        "conflict_candidates",
        tenant,
        user_id,
        limit=limit,
        vectors=vectors,
        min_cosine=min_cosine,
    )
    return [
        Known(
            fact_id=r["fact_id"],
            content=r["content"] or "",
            kind=r["kind"] or "fact",
            polarity=r["polarity"],
            slot=r["slot"],
            valid_from=native(r["valid_from"]),
            embedding=r["embedding"],
            sources=tuple(r["sources"]),
            entities=tuple((e["name"], e["type"]) for e in r["ents"]),
            previous=r["previous"],
        )
        for r in rows
    ]


async def active_slots(db: Database, tenant: str, user_id: str, heads: list[str]) -> list[str]:
    """The slots of the user's active Facts that start with one of `heads` (a superset of
    the ones whose head is one of them: the caller compares heads)."""
    rows = await user_rows(db, "active_slots", tenant, user_id, heads=heads)
    return [r["slot"] for r in rows]
