"""The foreground signal between processes: APIs that serve agents publish until when
they are busy; workers read whether any is (service/foreground.py paces them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.db import Database
from graph.queries import query

STALE = timedelta(hours=1)  # an API's node this long past its `until` is removed


async def publish_busy(db: Database, source: str, until: datetime) -> None:
    """Mark `source` (one API process) busy until `until`."""
    await db.write_rows(
        query("foreground_publish"), source=source, until=until, stale=until - STALE
    )


async def foreground_busy(db: Database, now: datetime | None = None) -> bool:
    """Whether any API process is busy at `now`."""
    rows = await db.rows(query("foreground_busy"), now=now or datetime.now(UTC))
    return bool(rows and rows[0]["busy"])
