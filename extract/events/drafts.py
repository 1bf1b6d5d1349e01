"""A behaviour FactDraft from the signals that support it (behaviour.py): the confidence
of each kind of evidence, the language most of its events are in, its labels, the
entities its events name, its sources and anchors."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from spacy.language import Language

from extract.events.signals import _HAN, _ITEM_STOP, _ITEM_WORD, _Signal
from extract.nlp import entity_refs
from extract.types import EntityRef, FactDraft, Kind, Lang, Rejection
from packs import Pack
from text.lang import fold

CONF_FILTER, CONF_REPEAT, CONF_SKIP, CONF_DWELL, CONF_SEARCH, CONF_PURCHASE = (
    0.7,
    0.8,
    0.7,
    0.6,
    0.7,
    0.9,
)
CONF_MAX = 0.9


def _lang_of(signals: Sequence[_Signal]) -> Lang:
    counts = Counter(s.lang for s in signals)
    top = max(counts.values())
    tied = {lang for lang, n in counts.items() if n == top}
    return next(s.lang for s in reversed(signals) if s.lang in tied)


def _labels(
    pack: Pack, kind: Kind, signals: Sequence[_Signal], label: str | None, text: str
) -> tuple[str, ...]:
    labels = ["behaviour", kind, *sorted({s.etype for s in signals})]
    if label:
        labels.append(label)
    labels += pack.labels_in(text)
    return tuple(dict.fromkeys(labels))


class _Builder:
    def __init__(self, en_nlp: Language, zh_nlp: Language, pack: Pack) -> None:
        self.en_nlp, self.zh_nlp, self.pack = en_nlp, zh_nlp, pack
        self._ents: dict[str, tuple[EntityRef, ...]] = {}

    def item_words(self, s: _Signal) -> set[str]:
        """Content words of an item's name (jieba words for Chinese), folded."""
        words: set[str] = set()
        for m in _ITEM_WORD.finditer(s.item or ""):
            word = m.group(0)
            if _HAN.search(word):
                words.update(t.text for t in self.zh_nlp.make_doc(word) if len(t.text) >= 2)
            elif fold(word) not in _ITEM_STOP:
                words.add(fold(word))
        return words

    def entities(
        self, signals: Iterable[_Signal], extra: Iterable[EntityRef]
    ) -> tuple[EntityRef, ...]:
        out: dict[tuple[str, str], EntityRef] = {}
        for s in signals:
            mid = s.msg.message_id
            if mid not in self._ents:
                nlp = self.zh_nlp if s.lang == "zh" else self.en_nlp
                self._ents[mid] = entity_refs(nlp(s.msg.content)) if s.msg.content else ()
            for ref in self._ents[mid]:
                out.setdefault((ref.type, ref.normalized), ref)
        for ref in extra:
            out.setdefault((ref.type, ref.normalized), ref)
        return tuple(out.values())

    def fact(
        self,
        *,
        content: str,
        kind: Kind,
        signals: Sequence[_Signal],
        key: str,
        confidence: float,
        slot: str | None = None,
        value: str | None = None,
        polarity: str = "neutral",
        extra: Iterable[EntityRef] = (),
        label: str | None = None,
        label_text: str = "",
    ) -> FactDraft:
        ts = [s.msg.timestamp for s in signals]
        anchors = tuple(
            dict.fromkeys(
                f"order:{s.msg.metadata['order_id']}"
                for s in signals
                if s.msg.metadata.get("order_id")
            )
        )
        return FactDraft(
            content=content,
            kind=kind,
            source_message_ids=tuple(dict.fromkeys(s.msg.message_id for s in signals)),
            time_start=min(ts),
            time_end=max(ts),
            lang=_lang_of(signals),
            entities=self.entities(signals, extra),
            labels=_labels(self.pack, kind, signals, label, f"{content} {label_text}"),
            slot=slot,
            value=value,
            polarity="avoids"
            if polarity == "avoids"
            else ("likes" if polarity == "likes" else "neutral"),
            explicit=False,
            confidence=round(min(confidence, CONF_MAX), 2),
            key=key,
            anchors=anchors,
        )


def _reject(signals: Sequence[_Signal], reason: str) -> Rejection:
    return Rejection(
        source_message_ids=tuple(s.msg.message_id for s in signals),
        reason=reason,
        text=" / ".join(s.msg.content for s in signals),
    )
