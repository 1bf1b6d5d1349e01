"""Implicit facts from behaviour events (filter, view, click, favorite, dwell, skip, search …).

Events are aggregated per user over the window given. A fact needs enough evidence: a filter
used, an explicit skip, a dwell, or at least ``min_repeat`` views/clicks/favourites sharing an
attribute. What an event is about comes from the event itself, in any domain: its metadata
(``{"field": …, "value": …}``, ``"attributes": [...]``, or any other key/value such as
``{"material": "oak"}``), its text ("field = value", "筛选：X = Y", "filter: X: Y"), or the
words two favourited items share. The domain packs (packs/) only add synonyms:
attribute names across languages, filter field names, slots and wording. Every fact lists
all supporting events, is ``explicit=False`` and has a confidence below 1 that grows with
the evidence. Keys depend on what the fact is about (slot, attribute, item), not on wording
or counts, so re-aggregating a window keeps them.

Each event is parsed into a signal (signals.py); filter values and shared traits
(traits.py) and items (items.py) give the facts, built with their evidence (drafts.py).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence

from spacy.language import Language

from extract.events.drafts import _Builder
from extract.events.items import _items, _purchases, _skips
from extract.events.signals import _parse, _Signal
from extract.events.traits import _attributes, _filters
from extract.types import Extraction, FactDraft, MessageRecord, Rejection
from packs import Pack
from packs import current as current_pack

log = logging.getLogger(__name__)


def _extract_user(
    b: _Builder, events: list[MessageRecord], min_repeat: int
) -> tuple[list[FactDraft], list[Rejection]]:
    signals: list[_Signal] = []
    rejections: list[Rejection] = []
    for msg in events:
        sig = _parse(b.pack, msg)
        if sig is None:
            reason = (
                "chat message: handled by extract_chat"
                if msg.event_type == "message"
                else f"unknown event type {msg.event_type!r}"
            )
            rejections.append(Rejection((msg.message_id,), reason, msg.content))
        elif sig.etype == "tool_call":
            rejections.append(
                Rejection((msg.message_id,), "tool_call: not a user preference signal", msg.content)
            )
        else:
            signals.append(sig)
    used: set[str] = set()
    facts = _filters(b, signals, min_repeat)
    attr_facts, attr_rej = _attributes(b, signals, min_repeat, used)
    item_facts, item_rej = _items(b, signals, min_repeat, used)
    facts += attr_facts + _skips(b, signals, min_repeat) + item_facts + _purchases(b, signals)
    used.update(i for f in facts for i in f.source_message_ids)
    rejections += attr_rej + [r for r in item_rej if not set(r.source_message_ids) <= used]
    return facts, rejections


def extract_events(
    events: Sequence[MessageRecord],
    en_nlp: Language,
    zh_nlp: Language,
    min_repeat: int = 2,
    pack: Pack | None = None,
) -> Extraction:
    """Aggregate behaviour events (per user, over the given window) into implicit facts.

    ``pack``: the domain packs to read attribute and field names from (default: current)."""
    by_user: dict[str, list[MessageRecord]] = defaultdict(list)
    for msg in sorted(events, key=lambda m: (m.timestamp, m.message_id)):
        by_user[msg.user_id].append(msg)
    builder = _Builder(en_nlp, zh_nlp, pack or current_pack())
    facts: list[FactDraft] = []
    rejections: list[Rejection] = []
    for user in sorted(by_user):
        f, r = _extract_user(builder, by_user[user], min_repeat)
        facts += f
        rejections += r
    log.debug("aggregated %d events into %d facts", len(events), len(facts))
    return Extraction(facts=tuple(facts), rejections=tuple(rejections))
