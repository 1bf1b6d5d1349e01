"""The in-process Python API: what the GraphQL resolvers and the CLI call."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from graph import ingest, reads, schema
from graph.db import Database
from gumem.inputs import parse_batch, parse_tenant
from gumem.lang import detect_lang
from gumem.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AddResult:
    accepted: list[str]
    duplicates: list[str]
    processed: int


class Memory:
    """GUMem for one process: the database, the settings and the (lazy) models."""

    def __init__(self, db: Database, settings: Settings, pipeline: Any = None) -> None:
        self.db = db
        self.settings = settings
        self.pipeline = pipeline

    async def add_messages(self, tenant: str, items: list[dict[str, Any]]) -> AddResult:
        tenant = parse_tenant(tenant)
        batch = parse_batch(items, self.settings)
        langs = [detect_lang(m.content) for m in batch]
        stored = await ingest.add_messages(self.db, tenant, batch, langs)
        log.info("stored %d messages (%d duplicates)", len(stored.accepted),
                 len(stored.duplicates))
        processed = 0
        if self.pipeline is not None and self.settings.process_mode == "sync" and stored.accepted:
            users = sorted({m.user_id for m in batch if m.message_id in set(stored.accepted)})
            processed = await self.pipeline.process_users(tenant, users)
        return AddResult(stored.accepted, stored.duplicates, processed)

    async def server_version(self) -> str:
        return await schema.server_version(self.db)

    async def message(self, tenant: str, message_id: str) -> dict[str, Any] | None:
        return await reads.message(self.db, tenant, message_id)
