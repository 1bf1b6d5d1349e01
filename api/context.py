"""The typed per-request context: the service, the caller's tenant and DataLoaders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gumem.service import Memory


@dataclass
class Context:
    memory: Memory
    tenant: str
    loaders: dict[str, Any] = field(default_factory=dict)
