"""One HTTP client per adapter instance, reused by every call (one connection pool, not a
new connection and TLS handshake per recall)."""

from __future__ import annotations

import asyncio
import threading
import weakref

from gumem.client import AsyncClient, Client


class _Held:
    """The clients themselves, apart from their owner, so a finalizer can close them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # LangChain calls sync methods from worker threads
        self.sync: Client | None = None
        self.aio: AsyncClient | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def close_sync(self) -> None:
        with self.lock:
            if self.sync is not None:
                self.sync.close()
                self.sync = None


class Clients:
    """An adapter's sync Client and AsyncClient, each made on first use and kept. The async
    one belongs to the event loop it was first used in (httpx's connections do): called
    from another loop (a second `asyncio.run`) it is replaced by a new one for that loop.
    `close()`/`aclose()` free them; an adapter dropped unclosed closes its sync one when
    garbage-collected."""

    def __init__(self, url: str | None, key: str | None, timeout_s: float = 60.0) -> None:
        self.url = url  # None: $GUMEM_URL, else the local server (gumem.client.resolve_url)
        self.key = key  # None: $GUMEM_API_KEY
        self.timeout_s = timeout_s
        self._held = _Held()
        weakref.finalize(self, self._held.close_sync)

    def sync(self) -> Client:
        held = self._held
        with held.lock:
            if held.sync is None:
                held.sync = Client(self.url, self.key, self.timeout_s)
            return held.sync

    def aio(self) -> AsyncClient:
        held, loop = self._held, asyncio.get_running_loop()
        if held.aio is None or held.loop is not loop:
            held.aio, held.loop = AsyncClient(self.url, self.key, self.timeout_s), loop
        return held.aio

    def close(self) -> None:
        self._held.close_sync()

    async def aclose(self) -> None:
        self.close()
        held = self._held
        if held.aio is not None and held.loop is asyncio.get_running_loop():
            await held.aio.aclose()
        held.aio = held.loop = None
