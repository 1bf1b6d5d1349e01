"""The exclusive file lock the tools share: the model directory (``modelprep``), the Neo4j
launcher's build (``neo4j_build``) and a dev Neo4j's home (``neo4j_dev``)."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def flock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created, with its folder, when missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
