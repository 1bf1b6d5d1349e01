"""The typed per-request context: the service, the caller's tenant and DataLoaders."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.loaders import Loaders
from core.errors import LimitError
from service.memory import Memory


@dataclass
class Context:
    memory: Memory
    tenant: str
    loaders: Loaders = field(init=False)
    items: int = field(init=False, default=0)  # list items this request has built so far

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.memory, self.tenant)

    def charge(self, n: int) -> None:
        """Count `n` more list items; past GUMEM_MAX_RESULT_ITEMS the request stops building."""
        self.items += n
        top = self.memory.settings.max_result_items
        if self.items > top:
            raise LimitError(
                f"result too large: more than {top} list items in one request "
                "(GUMEM_MAX_RESULT_ITEMS); ask for smaller lists (`limit`) or nest less"
            )
