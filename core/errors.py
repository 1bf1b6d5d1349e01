"""One exception family for GUMem. Messages never carry user content or secrets."""

from __future__ import annotations


class GumemError(Exception):
    """Base of every error GUMem raises on purpose."""

    code = "GUMEM_ERROR"


class ConfigError(GumemError):
    code = "CONFIG_ERROR"


class InputError(GumemError):
    """Bad input: names the field (and the batch index) and the reason."""

    code = "BAD_INPUT"

    def __init__(self, field: str, reason: str, index: int | None = None) -> None:
        self.field = field
        self.reason = reason
        self.index = index
        where = f"messages[{index}].{field}" if index is not None else field
        super().__init__(f"{where}: {reason}")


class NotFoundError(GumemError):
    code = "NOT_FOUND"


class AuthError(GumemError):
    code = "UNAUTHENTICATED"


class StorageUnavailable(GumemError):
    """Neo4j cannot be reached; the request wrote nothing."""

    code = "STORAGE_UNAVAILABLE"


class ExtractorUnavailable(StorageUnavailable):
    """No extraction process could start: work stays queued, as in a storage outage."""


class Fenced(GumemError):
    """A deletion touched the user since this run read its Messages: it wrote nothing
    and starts over (its Messages are still pending)."""

    code = "FENCED"


class LeaseLost(Fenced):
    """Another worker claimed the user's processing lease (ours expired): this run stops
    and writes nothing more; the new owner processes what is still pending."""

    code = "LEASE_LOST"


class ConflictError(GumemError):
    """The graph moved while a deletion ran (processing wrote meanwhile): nothing was
    deleted; the deletion is planned again."""

    code = "CONFLICT"


class ModelError(GumemError):
    code = "MODEL_ERROR"


class QueryTimeout(GumemError):
    """A Neo4j transaction ran past GUMEM_QUERY_TIMEOUT_S and was stopped; nothing written."""

    code = "QUERY_TIMEOUT"


class LimitError(GumemError):
    """A request asked for more than a configured limit allows (its message says which)."""

    code = "LIMIT_EXCEEDED"


class ServerUnreachable(GumemError):
    """A client could not connect to the GUMem server (refused, unknown host, connect
    timeout): nothing was sent."""

    code = "SERVER_UNREACHABLE"
