"""What a Fact's own words give conflict detection (conflicts.py), read by shape: its value
words with their type (a name or a number), the attribute a change verb names, and the
content words or prepositions two Facts share. Capitalised or Latin words and numbers in
English, nouns by jieba tag in Chinese; grammar words only."""

from __future__ import annotations

from text import rx
from text.zh_words import cut_zh

_HAN = rx.compile(r"[\u4e00-\u9fff]")
_WORD_EN = rx.compile(r"[A-Za-z0-9][\w.+#@/-]*")
_DIGIT = rx.compile(r"\d")
_TRAIL_PUNCT = rx.compile(r"[.\-/]+$")
# subjects the wording writes, change cues, and sentence-initial words: never a value
_NOT_VALUE = {
    "the", "user", "user's", "users", "i", "i'm", "let's", "actually", "instead", "now",
    "make", "that", "and", "others", "new", "no", "not", "longer", "switched", "moved",
    "changed", "update", "correction", "a", "an", "my", "our", "we",
}  # fmt: skip
_NOT_VALUE_ZH = {"用户", "用户等人", "我", "我们", "现在", "以后", "今后", "一下"}
_VALUE_FLAGS_ZH = ("n", "eng", "m", "t", "j")
# an attribute named before a change verb ("修车的地方改为 Y", "把窗帘换成 Y")
_ATTR_ZH = rx.compile(
    r"^(?P<attr>.{1,24}?)(?:也|都|又|已经|就)?(?:换成|改成|改为|改到|换到|调成|调到|改在|挪到|变成)"
)
_ATTR_EN = rx.compile(
    r"\b(?:switch|chang|mov|swap|updat)\w*\s+(?:my\s+|our\s+|the\s+)?"
    r"(?P<attr>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)\s+(?:to|for)\b",
    rx.IGNORECASE,
)
_NOT_ATTR = {"it", "them", "that", "this", "over", "back", "things", "everything", "plans"}
_NOT_ATTR_ZH = {"用户", "用户等人", "我们", "现在", "以后", "今后", "那边", "这边", "地方"}
_ANCHOR_FLAGS_ZH = ("n", "v", "eng", "j", "l")
# English function words that share no attribute between two Facts
_FUNCTION_EN = {
    "about", "after", "again", "also", "been", "before", "being", "does", "done", "each",
    "every", "from", "have", "having", "here", "into", "just", "more", "most", "much", "only",
    "other", "over", "same", "some", "than", "that", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "very", "were", "what", "when", "where", "which",
    "while", "will", "with", "would", "your", "days", "nowadays", "currently", "moment",
}  # fmt: skip
_STEM = 5  # English words sharing their first letters share a stem (emptied/empties)


def values(content: str) -> dict[str, str]:
    """The value words of a Fact's content, each with its type ("num", "name", or in English
    "phrase": a common-noun value a change names, "Y instead", "… in Y")."""
    out: dict[str, str] = {}
    if _HAN.search(content):
        run: list[str] = []
        for word, flag in [*cut_zh(content), ("", "x")]:
            w = word.strip()
            modifier = flag[:1] in ("n", "g", "j", "l", "i") or flag == "eng"
            # a verb-tagged modifier counts too ("安心" + H)
            modifier = modifier or (flag[:1] in ("v", "a") and len(w) >= 2)
            if w and w not in _NOT_VALUE_ZH and modifier:
                run.append(w)
                if len(run) > 1 and len(w) >= 2 and flag[:1] == "n":
                    # 康+宁+H: jieba cuts a name it does not know into characters
                    out["".join(run)] = "name"
            elif w or not word:
                run = []
            if not w or w in _NOT_VALUE_ZH or not flag.startswith(_VALUE_FLAGS_ZH):
                continue
            if _DIGIT.search(w) or flag[:1] in ("m", "t"):
                out[w] = "num"
            elif flag in ("eng", "j") or (flag[:1] == "n" and len(w) >= 2):
                out[w] = "name"
        return out
    for i, m in enumerate(_WORD_EN.finditer(content)):
        w = _TRAIL_PUNCT.sub("", m.group(0))
        low = w.lower()
        if not w or low in _NOT_VALUE:
            continue
        if _DIGIT.search(w):
            out[w] = "num"
        elif w[:1].isupper() and i > 0:
            out[w] = "name"
    for found in (_INSTEAD_EN.search(content), _LAST_OBJECT_EN.search(content)):
        phrase = found.group("value").lower() if found else ""
        if phrase and not set(phrase.split()) & (_NOT_VALUE | _FUNCTION_EN):
            out.setdefault(phrase, "phrase")  # "Y instead", "… in Y": a common-noun value
    return out


# a value in common nouns: the words before "instead", the object a clause ends with
_INSTEAD_EN = rx.compile(
    r"(?:^|[:,;]\s*|\b(?:to|with|in|into)\s+)(?P<value>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)"
    r"\s+instead\b"
)
_LAST_OBJECT_EN = rx.compile(
    r"\b(?:in|with|into)\s+(?:the\s+|a\s+|an\s+)?"
    r"(?P<value>(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*)\s*[.!]?$"
)


def _words(content: str) -> set[str]:
    if _HAN.search(content):
        return {
            w.strip().lower()
            for w, _f in cut_zh(content)
            if len(w.strip()) >= 2 and w.strip() not in _NOT_VALUE_ZH
        }
    words = {m.group(0).lower() for m in _WORD_EN.finditer(content) if len(m.group(0)) >= 3}
    return words - _NOT_VALUE


def attribute(content: str) -> list[str]:
    """The words of the attribute a change verb names in ``content`` ("修车的地方改为 Y" ->
    修车; "把窗帘换成 Y" -> 窗帘; "switched the weekly sync to Y" -> weekly, sync); [] when none."""
    if _HAN.search(content):
        m = _ATTR_ZH.search(content)
        if not m:
            return []
        return [
            w
            for w, f in cut_zh(m.group("attr"))
            if len(w.strip()) >= 2 and w not in _NOT_ATTR_ZH and f.startswith(("n", "v", "eng"))
        ]
    m = _ATTR_EN.search(content)
    if not m:
        return []
    words = m.group("attr").lower().split()
    if words[0] in _NOT_ATTR or words[0] in ("to", "from", "up", "out"):
        return []  # "switched to Y", "changed it to Y": no attribute named
    return [w for w in words if w not in _NOT_ATTR and len(w) >= 3]


def _anchored(new: str, old: str) -> bool:
    """The two Facts share a content word: a head
    noun ("乙H" / "甲H": H), or in English a stem (emptied / empties)."""
    if _HAN.search(new):
        for w, f in cut_zh(new):
            w = w.strip()
            if len(w) < 2 or w in _NOT_VALUE_ZH or _DIGIT.search(w):
                continue
            if f.startswith(_ANCHOR_FLAGS_ZH) and w in old:
                return True
        return False
    olds = {
        m.group(0).lower()[:_STEM]
        for m in _WORD_EN.finditer(old)
        if len(m.group(0)) >= 4 and m.group(0).lower() not in _FUNCTION_EN
    }
    for m in _WORD_EN.finditer(new):
        w = m.group(0).lower()
        if len(w) < 4 or w in _NOT_VALUE or w in _FUNCTION_EN or _DIGIT.search(w):
            continue
        if w[:_STEM] in olds:
            return True
    return False


_PREP_EN = {"on", "in", "at", "with", "from", "to", "for", "via", "by"}
_DET_EN = {"the", "a", "an", "their", "its", "my", "our", "his", "her"}


def _roles(content: str, vals: set[str]) -> set[str]:
    """The prepositions that govern the values ``vals`` in English ``content`` ("on Bitbucket")."""
    words = [_TRAIL_PUNCT.sub("", m.group(0)) for m in _WORD_EN.finditer(content)]
    out: set[str] = set()
    for i, w in enumerate(words):
        if w not in vals:
            continue
        j = i - 1
        while j >= 0 and words[j].lower() in _DET_EN:
            j -= 1
        if j >= 0 and words[j].lower() in _PREP_EN:
            out.add(words[j].lower())
    return out


def _same_role(new: str, old: str, new_vals: dict[str, str], old_vals: dict[str, str]) -> bool:
    """A value the new Fact has and the older lacks, and one the older has and the new
    lacks, stand after the same preposition: "hosted on Bitbucket" / "sits on Y"."""
    if _HAN.search(new) or _HAN.search(old):
        return False
    low_new, low_old = new.lower(), old.lower()
    fresh = {w for w in new_vals if w.lower() not in low_old}
    gone = {w for w in old_vals if w.lower() not in low_new}
    return bool(_roles(new, fresh) & _roles(old, gone))


__all__ = ["attribute", "values"]
