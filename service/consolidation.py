"""Consolidation: a batch's dirty Facts filed under Topics and the Summaries of the Topics
they touch re-planned (the pipeline's second half: service/pipeline.py holds one), and the
Summaries a deletion leaves re-derived (service/erasure.py)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from consolidation.summaries import build_summaries, summary_key
from consolidation.topics import (
    DEFAULT_CONTEXT_WINDOW,
    TopicChoice,
    assign_topics,
    slot_family,
    topic_embedding_text,
)
from core.errors import Fenced
from core.metrics import CONSOLIDATION_SECONDS, timed
from core.settings import Settings
from extract.types import FactRecord
from graph import filed_facts as gf
from graph import topic_summary_writes as gts
from graph.db import Database
from graph.fencing import UserWrite, write_fenced
from graph.ids import stable_id
from service.models import Models

# a batch plans again the latest Summaries of each Topic it touches, besides those of its
# Facts and sessions: where a new Fact may join a group still small enough to grow
RECENT_SUMMARIES = 3

# a user to consolidate: tenant, user id, whether it may carry a consolidation mark to clear
# even if nothing changed, the token its batch's writes passed (None: read one)
Consolidating = tuple[str, str, bool, str | None]
Outcome = tuple[int, int] | Fenced  # (Summaries written, retired), or fenced

# the user's fencing token as the run holds it (tenant, user id, the read scope to read it in)
TokenOf = Callable[[str, str, Database | None], Awaitable[str | None]]


class Consolidation:
    """The consolidation steps, over the database, the settings and the models. `token`
    reads the user's fencing token for a run (the pipeline's: it checks the run still
    holds the user's lease)."""

    def __init__(self, db: Database, settings: Settings, models: Models, token: TokenOf) -> None:
        self.db = db
        self.settings = settings
        self.models = models
        self._token = token

    async def run(
        self, tenant: str, user_id: str, marked: bool = False, token: str | None = None
    ) -> tuple[int, int]:
        """One user's consolidation (`run_many`); Fenced if a deletion or another worker
        moved the user since its token was read."""
        (out,) = await self.run_many([(tenant, user_id, marked, token)])
        if isinstance(out, Fenced):
            raise out
        return out

    @timed(CONSOLIDATION_SECONDS)
    async def run_many(self, users: list[Consolidating]) -> list[Outcome]:
        """For each user: file unfiled facts under Topics and rebuild the Summaries that
        changed; (Summaries written, retired) per user, or Fenced for one whose write was
        fenced (nothing of it written, the others' are).

        Incremental: only what the batch touched is read and re-planned, the Facts marked
        `dirty` since the last consolidation (written, re-merged, superseded), the Topics
        they are or get filed under (a correction's: the Topic of what it corrects), the
        filed Facts that can vote on a new one's Topic (its sessions, slot families and
        time, `gf.facts_near`), and of those Topics only the Summaries the batch can change
        (those its Facts support, those of its sessions, the latest few of each Topic,
        `gts.summaries_around`) with their Facts: every other Summary stays as it is, so
        what a batch reads is bounded by the batch, never by a Topic's history.
        `marked`: the user may carry a consolidation mark, to clear even when nothing
        changed (otherwise that costs no write; a stale mark goes to the worker). Its
        writes are fenced by the token read here, before what it reads, or by `token`
        (the one the batch's own writes just passed: fenced if it changed since). Every
        user's reads run in one read transaction, their writes in one write transaction."""
        started = datetime.now(UTC)
        plans: list[tuple[str | None, _Plan | None]] = []
        async with self.db.reads() as db:
            for tenant, user_id, _marked, token in users:
                token = token or await self._token(tenant, user_id, db)
                plans.append((token, await self._plan(db, tenant, user_id)))
        writes: list[UserWrite[None]] = []
        for (tenant, user_id, marked, _), (token, plan) in zip(users, plans, strict=True):
            if plan is not None:
                writes.append(
                    gts.consolidation_write(
                        tenant,
                        user_id,
                        topics=plan.topics,
                        assign=plan.assign,
                        summaries=plan.summaries,
                        retire=plan.retire,
                        started=started,
                        token=token,
                        touched=plan.touched,
                        clean=plan.clean,
                    )
                )
            elif marked:
                writes.append(gts.mark_write(tenant, user_id, started, token))
        written: list[Fenced | None] = await write_fenced(self.db, writes)
        fenced = {
            (w.tenant, w.user_id): got
            for w, got in zip(writes, written, strict=True)
            if isinstance(got, Fenced)
        }
        return [
            fenced.get((t, u)) or ((len(p.summaries), len(p.retire)) if p else (0, 0))
            for (t, u, _, _), (_, p) in zip(users, plans, strict=True)
        ]

    async def _plan(self, db: Database, tenant: str, user_id: str) -> _Plan | None:
        """What consolidating the user's dirty Facts writes (None: nothing is dirty)."""
        dirty = await gf.dirty_facts(db, tenant, user_id)
        if not dirty:
            return None
        unfiled_all = [x for x in dirty if x.active and x.topic is None]
        unfiled = [x.fact for x in unfiled_all]
        corrections = [(x.fact, x.prev_topic) for x in unfiled_all if x.prev_topic]
        to_file = [x.fact for x in unfiled_all if not x.prev_topic]
        topics = await gts.user_topics(db, tenant, user_id)
        choices: dict[str, TopicChoice] = {}
        if to_file:
            near = await self._voters(db, tenant, user_id, unfiled)
            # a correction goes with what it corrects, and like a filed fact it tells the
            # rest of its session which goal they belong to
            known = [(x.fact, x.topic) for x in near if x.topic] + corrections
            choices = await asyncio.to_thread(  # CPU (rules, maybe embeddings): off the loop
                assign_topics,
                to_file,
                topics,
                self.models.embedder,
                threshold=self.settings.topic_similarity,
                known=known,
                nlp=self.models.en,
            )
        for f, prev in corrections:  # a correction is filed with what it corrects
            choices[f.fact_id] = TopicChoice(prev, False, "context", 1.0)
        topic_ids = {t.name: t.topic_id for t in topics}
        names: dict[str, tuple[str, str]] = {}  # new Topic name → (id, embedding text)
        for choice in {c.name: c for c in choices.values()}.values():
            if choice.name not in topic_ids:
                tid = stable_id("t", tenant, user_id, choice.name)
                names[choice.name] = (tid, topic_embedding_text(choice.name))
                topic_ids[choice.name] = tid
        vecs = (
            await asyncio.to_thread(self.models.embed_topics, [text for _, text in names.values()])
            if names
            else []
        )
        new_topics = [
            gts.NewTopic(tid, name, text, v)
            for (name, (tid, text)), v in zip(names.items(), vecs, strict=True)
        ]
        touched = sorted({x.topic for x in dirty if x.topic} | {c.name for c in choices.values()})
        # incremental: only the Summaries the batch can change are planned again, from
        # their own Facts and the batch's; every other Summary stays as it is
        dirty_ids = [x.fact.fact_id for x in dirty]
        current = await gts.summaries_around(
            db,
            tenant,
            user_id,
            touched,
            dirty=dirty_ids,
            sessions=sorted({s for x in dirty for s in x.fact.session_ids}),
            recent=RECENT_SUMMARIES,
        )
        held = sorted({f for c in current for f in c.source_facts}.difference(dirty_ids))
        filed = [
            (x.fact, x.topic)
            for x in await gf.facts_of_topics(db, tenant, user_id, [], also=held)
            if x.active and x.topic in touched
        ]
        filed += [(x.fact, x.topic) for x in dirty if x.active and x.topic is not None]
        filed += corrections
        by_topic: dict[str, list[FactRecord]] = defaultdict(list)
        for f, t in filed:
            by_topic[t].append(f)
        for f in unfiled:
            by_topic[choices[f.fact_id].name].append(f)
        together = {f: c.summary_id for c in current for f in c.source_facts}
        summaries, retire = await asyncio.to_thread(
            self._plan_summaries, tenant, user_id, by_topic, topic_ids, current, together
        )
        summaries = await self._embed_summaries(db, tenant, summaries, current, user_id=user_id)
        return _Plan(
            topics=new_topics,
            assign=[gts.Filing(f.fact_id, choices[f.fact_id].name) for f in unfiled],
            summaries=summaries,
            retire=retire,
            touched=touched,
            clean=[x.fact.fact_id for x in dirty],
        )

    async def _voters(
        self, db: Database, tenant: str, user_id: str, new: list[FactRecord]
    ) -> list[gf.Filed]:
        """The filed Facts whose Topic can vote on the new facts' (consolidation/topics.py
        `_closeness`: one session, one slot family or within the context window)."""
        window = DEFAULT_CONTEXT_WINDOW
        sessions = sorted({s for f in new for s in f.session_ids})
        families = sorted({slot_family(f.slot) for f in new if f.slot})
        spans = [(f.time_start - window, f.time_end + window) for f in new]
        return await gf.facts_near(db, tenant, user_id, sessions, families, spans)

    async def rebuild(
        self,
        tenant: str,
        user_id: str,
        topics: list[str],
        removed: list[str],
        restored: list[str],
        purged: list[str],
        revise: Callable[[FactRecord], FactRecord] | None = None,
    ) -> list[gts.NewSummary]:
        """Summaries re-derived for `topics` as they will be once `removed` facts are gone
        (and kept ones are as `revise` makes them)."""
        facts = await gf.facts_of_topics(self.db, tenant, user_id, topics, also=restored)
        by_topic: dict[str, list[FactRecord]] = defaultdict(list)
        for x in facts:
            if x.topic in topics and x.fact.fact_id not in removed:
                by_topic[x.topic].append(revise(x.fact) if revise else x.fact)
        current = [
            c
            for c in await gts.active_summaries(self.db, tenant, user_id, topics)
            if c.summary_id not in purged
        ]
        known = {t.name: t.topic_id for t in await gts.user_topics(self.db, tenant, user_id)}
        out, _retire = await asyncio.to_thread(
            self._plan_summaries, tenant, user_id, by_topic, known, current
        )
        return await self._embed_summaries(self.db, tenant, out)

    async def _embed_summaries(
        self,
        db: Database,
        tenant: str,
        planned: list[gts.NewSummary],
        current: list[gts.CurrentSummary] | None = None,
        user_id: str | None = None,
    ) -> list[gts.NewSummary]:
        """The planned Summaries with their embeddings: a text one of the `current`
        Summaries already has keeps its vector (read for those texts only). With `user_id`
        (a batch's consolidation) a changed text gets the mean of its Facts' stored vectors
        (`centroid`); otherwise (a deletion's rebuild, whose Facts may be revised), or when
        none of its Facts has a vector, its text is embedded."""
        if not planned:
            return planned
        texts = {s.draft.content for s in planned}
        same = [c.summary_id for c in current or () if c.content in texts]
        have = await gts.summary_embeddings(db, tenant, same)
        if user_id is not None:
            ids = {
                f for s in planned if s.draft.content not in have for f in s.draft.source_fact_ids
            }
            vecs = await gf.fact_embeddings(db, tenant, user_id, sorted(ids))
            for s in planned:
                if s.draft.content in have:
                    continue
                mean = centroid([vecs[f] for f in s.draft.source_fact_ids if f in vecs])
                if mean is not None:
                    have[s.draft.content] = mean
        todo = sorted(texts - have.keys())
        if todo:
            embedded = await asyncio.to_thread(self.models.embedder.embed_passages, todo)
            have.update(zip(todo, embedded, strict=True))
        return [
            gts.NewSummary(
                s.summary_id, s.topic_id, s.key, s.version, s.draft, have[s.draft.content]
            )
            for s in planned
        ]

    def _plan_summaries(
        self,
        tenant: str,
        user_id: str,
        by_topic: dict[str, list[FactRecord]],
        topic_ids: dict[str, str],
        current: list[gts.CurrentSummary],
        together: dict[str, str] | None = None,
    ) -> tuple[list[gts.NewSummary], list[gts.Retirement]]:
        """The Summaries of `by_topic`'s Facts against the `current` ones: new versions to
        write, and the current ones they replace or that lost their Facts (retired); a
        current Summary planned again unchanged is kept."""
        now = datetime.now(UTC)
        existing = {c.summary_id: c for c in current}
        stored: dict[str, list[_Stored]] = defaultdict(list)  # the current ones by topic
        for row in current:
            stored[row.topic].append(_Stored.of(row))
        out: list[gts.NewSummary] = []
        keep: set[str] = set()
        for topic, facts in sorted(by_topic.items()):
            slots = {f.fact_id: f.slot for f in facts if f.slot}
            for draft in build_summaries(topic, facts, now=now, together=together):
                key = summary_key(topic, draft.source_fact_ids)
                sid = stable_id("s", tenant, user_id, key, draft.content)
                if sid in existing:
                    keep.add(sid)
                    continue
                prev = [x for x in stored[topic] if x.related(draft.source_fact_ids, slots)]
                version = 1 + max((x.version for x in prev), default=0)
                out.append(gts.NewSummary(sid, topic_ids[topic], key, version, draft, None))
        all_slots = {f.fact_id: f.slot for fs in by_topic.values() for f in fs if f.slot}
        retire: list[gts.Retirement] = []
        for topic, olds in stored.items():
            new = [s for s in out if s.draft.topic == topic]
            for old in olds:
                if old.summary_id in keep:
                    continue
                successor = next(
                    (s.summary_id for s in new if old.related(s.draft.source_fact_ids, all_slots)),
                    None,
                )
                retire.append(gts.Retirement(old.summary_id, successor))
        return out, retire


@dataclass(frozen=True)
class _Plan:
    """A consolidation's writes (gts.write_consolidation)."""

    topics: list[gts.NewTopic]
    assign: list[gts.Filing]
    summaries: list[gts.NewSummary]
    retire: list[gts.Retirement]
    touched: list[str]
    clean: list[str]


@dataclass(frozen=True)
class _Stored:
    """A current Summary as planning compares it: its facts and their slots as sets."""

    summary_id: str
    version: int
    facts: frozenset[str]
    slots: frozenset[str]

    @classmethod
    def of(cls, row: gts.CurrentSummary) -> _Stored:
        return cls(row.summary_id, row.version, frozenset(row.source_facts), frozenset(row.slots))

    def related(self, fact_ids: tuple[str, ...], slots: dict[str, str]) -> bool:
        """It and a new draft share a fact, or a slot (a correction)."""
        if not self.facts.isdisjoint(fact_ids):
            return True
        return any(slots[f] in self.slots for f in fact_ids if f in slots)


def centroid(vectors: list[list[float]]) -> list[float] | None:
    """The unit-length mean of `vectors` (None for none): a Summary's vector from its
    Facts', so recall's cosine ranks it by what it is made of."""
    if not vectors:
        return None
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm).tolist() if norm > 0 else None
