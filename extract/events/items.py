"""Facts about items themselves (behaviour.py): skipped items (one fact per shared facet
when skips of different items share one), items looked at or searched for repeatedly,
and purchases."""

from __future__ import annotations

from collections import defaultdict

from extract.events.drafts import (
    CONF_PURCHASE,
    CONF_REPEAT,
    CONF_SEARCH,
    CONF_SKIP,
    _Builder,
    _lang_of,
    _reject,
)
from extract.events.signals import _norm, _Signal, _slug
from extract.types import FactDraft, Rejection
from text.lang import fold


def _skips(b: _Builder, signals: list[_Signal], min_repeat: int) -> list[FactDraft]:
    """Skipped items, grouped by their attributes; skips of different items that share a
    metadata facet (genre, tag …) give one fact about the facet."""
    skips = [s for s in signals if s.etype == "skip" and (s.item or s.attributes or s.facets)]
    by_facet: dict[tuple[str, str], list[_Signal]] = defaultdict(list)
    for s in skips:
        if not s.attributes:
            for key, value in s.facets:
                by_facet[(key, fold(value))].append(s)
    groups: dict[str, tuple[list[_Signal], str | None]] = {}
    covered: set[str] = set()
    for (key, value), group in by_facet.items():
        if len({_norm(s.item or "") for s in group}) >= 2 and len(group) >= min_repeat:
            shown = next(v for k, v in group[-1].facets if (k, fold(v)) == (key, value))
            groups.setdefault(f"{key}={value}", (group, shown))
            covered.update(s.msg.message_id for s in group)
    for s in skips:
        if s.msg.message_id in covered:
            continue
        item_id = "+".join(sorted(s.attributes)) or _norm(s.item or "")
        if item_id:
            groups.setdefault(item_id, ([], None))[0].append(s)
    facts = []
    for item_id, (group, named) in groups.items():
        lang = _lang_of(group)
        item = named or next(s.item for s in reversed(group) if s.item) or item_id
        content = (
            f"用户当前不倾向{item}"
            if lang == "zh"
            else f"The user is currently not inclined towards {item}"
        )
        conf = CONF_REPEAT if len(group) >= min_repeat else CONF_SKIP
        facts.append(
            b.fact(
                content=content,
                kind="preference",
                signals=group,
                key=f"preference:avoid:{_slug(item_id)}",
                confidence=conf,
                polarity="avoids",
                label_text=item,
            )
        )
    return facts


def _items(
    b: _Builder, signals: list[_Signal], min_repeat: int, used: set[str]
) -> tuple[list[FactDraft], list[Rejection]]:
    """Repeated views/clicks/searches of one item; single ones are rejected (not a preference)."""
    groups: dict[tuple[str, str], list[_Signal]] = defaultdict(list)
    for s in signals:
        if s.etype in ("view", "click", "favorite", "search", "dwell") and s.item:
            group = "search" if s.etype == "search" else "look"
            groups[(group, _norm(s.item))].append(s)
    facts, rejections = [], []
    for (group, item_id), sigs in groups.items():
        n = sum(s.count for s in sigs)
        item = sigs[-1].item or item_id
        lang = _lang_of(sigs)
        if n >= min_repeat and not any(s.attributes for s in sigs):
            if group == "search":
                content = (
                    f"用户多次搜索“{item}”"
                    if lang == "zh"
                    else f'The user searched for "{item}" several times'
                )
                key, conf = f"behavior_pattern:search:{item_id}", CONF_SEARCH
            else:
                content = (
                    f"用户多次浏览{item}"
                    if lang == "zh"
                    else f"The user looked at {item} several times"
                )
                key, conf = f"behavior_pattern:item:{item_id}", CONF_SEARCH
            facts.append(
                b.fact(
                    content=content,
                    kind="behavior_pattern",
                    signals=sigs,
                    key=key,
                    confidence=conf,
                    label_text=item,
                )
            )
            used.update(s.msg.message_id for s in sigs)
        elif not any(s.msg.message_id in used for s in sigs):
            kinds = "/".join(sorted({s.etype for s in sigs}))
            rejections.append(
                _reject(sigs, f"{n} {kinds} on {item}: below evidence threshold {min_repeat}")
            )
    return facts, rejections


def _purchases(b: _Builder, signals: list[_Signal]) -> list[FactDraft]:
    facts = []
    for s in signals:
        if s.etype == "purchase" and s.item:
            content = f"用户购买了{s.item}" if s.lang == "zh" else f"The user bought {s.item}"
            facts.append(
                b.fact(
                    content=content,
                    kind="timeline",
                    signals=[s],
                    key=f"timeline:purchase:{_norm(s.item)}",
                    confidence=CONF_PURCHASE,
                    label_text=s.item,
                )
            )
    return facts
