"""The names of Topics (topics.py): a new Topic's name from a fact, a group's key noun
phrase, the text embedded for a Topic, and the slot family a fact belongs to.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import jieba.posseg as pseg

from extract.types import FactRecord, Lang
from packs import current as current_pack
from packs.taxonomy import Taxonomy, normalize_name
from text import rx

FALLBACK_TOPIC = "general"

# Labels that say how a fact was made, not what it is about.
# fmt: off
_GENERIC_LABELS = frozenset(
    {
        "preference", "constraint", "plan", "identity", "behavior_pattern", "behavior",
        "behaviour", "timeline", "fact", "explicit", "implicit", "message", "search",
        "filter", "view", "click", "favorite", "dwell", "skip", "purchase", "tool_call",
        "chat", "user", "general", "misc", "other", "likes", "avoids", "neutral", "correction",
        "event", "item", "items", "thing", "things", "way", "time", "lot", "bit", "kind",
    }
)
# fmt: on
# Entity types that name a value rather than a subject.
_VALUE_TYPES = frozenset(
    {"MONEY", "SIZE", "DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "QUANTITY", "PERSON"}
)
# fmt: off
_EN_STOP = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "user", "user's", "users", "i", "me",
    "my", "we", "our", "you", "your", "he", "she", "it", "they", "them", "his", "her", "its",
    "their", "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had",
    "do", "does", "did", "will", "would", "can", "could", "should", "may", "might", "must",
    "not", "no", "to", "of", "in", "on", "at", "for", "with", "from", "by", "about", "as",
    "into", "over", "under", "than", "and", "or", "but", "so", "very", "really", "just",
    "also", "often", "usually", "always", "currently", "recently", "now", "today", "yesterday",
    "tomorrow", "go", "goes", "went", "going", "gone", "get", "got", "like", "likes", "liked",
    "want", "wants", "wanted", "prefer", "prefers", "preferred", "plan", "plans", "planned",
    "planning", "think", "thinks", "thought", "feel", "feels", "felt", "love", "loves",
    "loved", "enjoy", "enjoys", "enjoyed", "need", "needs", "looking", "look", "looks",
    "interested", "more", "most", "less", "some", "any", "all", "much", "many", "one", "two",
))
# fmt: on
_ZH_SUBJECT = rx.compile(r"^(?:该用户|用户|我们|我|他们|她们|他|她)")
_ZH_LEAD = rx.compile(
    r"^(?:的)?(?:近期|最近|目前|现在|当前|正在|经常|常常|常|通常|一般|主要|更|很|非常|比较|不太|不)*"
    r"(?:在|有|是|想要|想|要|打算|计划|准备|喜欢|偏好|倾向|关注|参加|去|买|购买|寻找|找|看|做|养|用)?"
    r"(?:了|过)?(?:一只|一个|一双|一件|一家|一条|一种|一次)?"
)
_ZH_CUT = rx.compile(r"[，。；;,.!！?？、（）()\s]")
_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = rx.compile(r"[A-Za-z][A-Za-z'\-]*")
# jieba parts of speech that name a thing (not a person, place, number or measure word)
_ZH_NOUN_TAGS = frozenset({"n", "nz", "nt", "nl", "ng", "vn", "eng"})
_ZH_GENERIC = frozenset(
    {"用户", "事情", "东西", "时候", "问题", "一下", "情况", "方面", "筛选", "推荐"}
)


def topic_embedding_text(
    name: str, aliases: Sequence[str] = (), taxonomy: Taxonomy | None = None
) -> str:
    """Text to embed for a Topic: its name, then its aliases (taxonomy ones included)."""
    pack = current_pack()
    canonical = pack.topic_canonical(name)
    entry = (taxonomy if taxonomy is not None else pack.taxonomy).get(canonical)
    # a Topic named in one language keeps its names in the others as aliases
    names = (canonical, *pack.topic_names.get(canonical, {}).values())
    terms: dict[str, None] = {}
    for term in (*names, *(entry.aliases if entry else ()), *aliases):
        norm = normalize_name(term)
        if norm and norm != normalize_name(name):
            terms[norm] = None
    listed = list(terms)[:24]
    return f"{normalize_name(name)}: {', '.join(listed)}" if listed else normalize_name(name)


def derive_topic_name(fact: FactRecord, *, noun: bool = True) -> str:
    """A short lower-case name for a new Topic: label, entity, slot family or main noun."""
    for label in fact.labels:
        name = _own_language(label.replace("_", " "), fact.lang)
        if name and label.lower() not in _GENERIC_LABELS and len(name) <= 40:
            return name
    for ent in fact.entities:
        if ent.type.upper() not in _VALUE_TYPES and ent.name.strip():
            # a Chinese fact's Topic takes the name as the user wrote it ("杭州", not "hangzhou")
            written = ent.name if fact.lang == "zh" else ent.normalized or ent.name
            return normalize_name(written)
    if fact.slot and (name := _own_language(_family(fact.slot).replace("_", " "), fact.lang)):
        return name
    if not noun:
        return FALLBACK_TOPIC
    main = _zh_noun(fact.content) if fact.lang == "zh" else _en_noun(fact.content)
    return main or FALLBACK_TOPIC


def localized_topic_name(name: str, lang: Lang) -> str:
    """A Topic name in ``lang``: the pack's name for a taxonomy Topic, else the name itself."""
    return current_pack().topic_name(normalize_name(name), lang)


def canonical_topic_name(name: str) -> str:
    """The taxonomy name a Topic name in any language stands for (else the name itself)."""
    return current_pack().topic_canonical(name)


def _own_language(label: str, lang: Lang) -> str:
    """A label of the engine's as a Topic name in ``lang``; "" when a Chinese fact would get
    an English word the user never wrote (the pack has no Chinese name for it)."""
    name = localized_topic_name(label, lang)
    if lang == "zh" and not _CJK.search(name):
        return ""
    return name


def _family(slot: str) -> str:
    return slot.split(":", 1)[0].strip().lower()


slot_family = _family  # public: the pipeline finds the filed facts of a slot family by it


def _en_noun(content: str) -> str:
    """Last two words of the first run of content words ("collects vintage fountain pens"
    → "fountain pens"); names and trailing -ed/-ly words are skipped."""
    runs: list[list[str]] = [[]]
    for word in _LATIN_WORD.findall(content):
        low = word.lower().strip("'")
        if low in _EN_STOP or len(low) < 2 or (word[0].isupper() and not word.isupper()):
            runs.append([])
        else:
            runs[-1].append(low)
    for run in runs:
        while run and run[-1].endswith(("ed", "ly")):
            run.pop()
        if run:
            return normalize_name(" ".join(run[-2:]))
    return ""


def _zh_noun(content: str) -> str:
    text = _ZH_SUBJECT.sub("", content.strip())
    text = _ZH_LEAD.sub("", text, count=1)
    head = _ZH_CUT.split(text, maxsplit=1)[0]
    if not head:
        return _en_noun(content)
    return normalize_name(head[:6])


def key_phrase(group: Sequence[FactRecord], nlp: Any = None) -> str:
    """The group's key noun phrase: the head noun found in most of its facts (the earliest
    on a tie), worded as its most common short noun chunk. English through spaCy's noun
    chunks (``nlp``; without it, the content-word runs of ``_en_noun``), Chinese through
    jieba's nouns. Never a clause, a function word or a verb."""
    heads: Counter[str] = Counter()
    first: dict[str, int] = {}
    wordings: dict[str, Counter[str]] = {}
    for i, f in enumerate(group):
        for head, text in set(_noun_phrases(f, nlp)):
            heads[head] += 1
            first.setdefault(head, i)
            wordings.setdefault(head, Counter())[text] += 1
    if not heads:
        return ""
    head = min(heads, key=lambda h: (-heads[h], first[h], h))
    text = min(wordings[head], key=lambda t: (-wordings[head][t], len(t), t))
    return normalize_name(text)[:40]


def _noun_phrases(fact: FactRecord, nlp: Any) -> list[tuple[str, str]]:
    """(head, wording) for every noun phrase of the fact's content."""
    if fact.lang == "zh":
        out: list[tuple[str, str]] = []
        latin: list[str] = []  # adjacent Latin words make one phrase ("smart home")
        for word, flag in [*pseg.lcut(fact.content), ("。", "x")]:
            word = word.strip()
            if flag == "eng" and word.lower() not in _EN_STOP:
                latin.append(word)
                continue
            if not word and flag == "x":
                continue
            if latin:
                phrase = " ".join(latin[-2:])
                if latin[-1].lower() not in _GENERIC_LABELS:
                    out.append((latin[-1].lower(), phrase))
                latin = []
            if flag in _ZH_NOUN_TAGS and len(word) >= 2 and word not in _ZH_GENERIC:
                out.append((word, word))
        return out
    if nlp is None:  # no parser: the fact's label, entity, slot or main noun
        name = derive_topic_name(fact)
        return [(name, name)] if name != FALLBACK_TOPIC else []
    out = []
    for chunk in nlp(fact.content).noun_chunks:
        root = chunk.root
        head = root.lemma_.lower()
        if root.pos_ not in ("NOUN", "PROPN") or head in _EN_STOP or head in _GENERIC_LABELS:
            continue
        if root.ent_type_ in _VALUE_TYPES or len(head) < 2 or not head.isalpha():
            continue
        words = [
            t.text.lower()
            for t in chunk
            if t.i <= root.i
            and t.pos_ in ("NOUN", "PROPN", "ADJ")
            and t.text.lower() not in _EN_STOP
            and not t.like_num
        ]
        words = words[-2:] if words and words[-1] == root.text.lower() else [root.text.lower()]
        out.append((head, " ".join(words)))
    return out
