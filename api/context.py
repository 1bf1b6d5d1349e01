"""The typed per-request context: the service, the caller's tenant and DataLoaders."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.loaders import Loaders
from gumem.service import Memory


@dataclass
class Context:
    memory: Memory
    tenant: str
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.memory.db, self.tenant)
