"""Chinese clause grammar for memory formation: closed-class cue words and jieba patterns.

Only grammar lives here (demonstratives and classifiers, topic markers, consultation
verbs, "unchanged" predicates, constraint words, route verbs), never a domain word. Each
function answers one question about a Chinese clause; chat extraction calls them at the
points where Chinese differs from English:

- ``demonstrative``: "那顿饭…" opens with a demonstrative, not with the conjunction 那;
- ``TOPIC_LEAD``: "我自己的话，" / "对我来说，" only introduce the user (a filler);
- ``asks_for_help``: "想咨询下X的事" asks the agent for help, it states nothing;
- ``opens_with_noun``: "推荐信…" opens with a noun, not with the request verb 推荐;
- ``implied_user``: a clause that drops its 我 but speaks of the user's home or the
  user's own completed action ("X找了两位Y");
- ``keep_clause`` / ``head_len``: "日期不变" / "还是 24 号" / "人数也一样" say which parts of
  a changed fact stay: they belong to the clause they qualify;
- ``bound_to_goal``: "想再买一份X，年费别超过 N" — a numeric limit with no subject of its
  own binds to the goal before it;
- ``route_slot``: "X（以后）发到/寄到/存到 Y": where X goes is a slot (``X:去向``), so a
  later "X以后也发Z" replaces it.
"""

from __future__ import annotations

from functools import lru_cache

import jieba
import jieba.posseg as pseg

from text import rx

_HAN = rx.compile(r"[\u4e00-\u9fff]")
_DIGIT = rx.compile(r"\d|[一二两三四五六七八九十百千万]")
_PUNCT = rx.compile(r"[，,。；;！!？?、：:]")

# --- demonstratives ------------------------------------------------------------------------

# 那/这 + a classifier or place word is a demonstrative ("那顿饭", "这家店", "那边"), never the
# discourse conjunction 那 ("那就改到下午吧")
_DEMONSTRATIVE = rx.compile(
    r"^[那这](?:[个顿家次件场位款台本张条份套辆间趟天晚回批单笔篇首部只双块瓶杯种样段些边里时阵]|一)"
)


def demonstrative(text: str) -> bool:
    """Whether ``text`` opens with a demonstrative phrase (那顿饭, 这家店, 那边)."""
    return bool(_DEMONSTRATIVE.match(text.lstrip()))


# --- topic leads and requests for help -------------------------------------------------------

# "我自己的话" / "至于我": they only introduce the user as the topic
TOPIC_LEAD = r"(?:(?:我们|我)(?:自己)?的话|至于(?:我们|我)(?:自己)?)"
_TOPIC_LEAD_ONLY = rx.compile(r"^" + TOPIC_LEAD + r"[，,：:\s]*$")

# consultation verbs: "想咨询下X的事", "想请教一下", "问一下"
_HELP = rx.compile(
    r"^(?:我们|我)?(?:就是|只是)?(?:想|要|来|希望|打算)?(?:跟你|向你|和你|找你)?"
    r"(?:咨询|请教|打听|问问|问一下|问下|了解一下|了解下)"
)


def topic_lead_only(text: str) -> bool:
    """Whether ``text`` is nothing but a topic lead ("我自己的话")."""
    return bool(_TOPIC_LEAD_ONLY.match(text.strip()))


_TOPIC_LED = rx.compile(TOPIC_LEAD + r"[，,：:\s]*$")


def topic_led(prefix: str) -> bool:
    """Whether the leads stripped before a clause end with a topic lead ("我自己的话，")."""
    return bool(_TOPIC_LED.search(prefix))


def asks_for_help(text: str) -> bool:
    """Whether the clause asks the agent for advice ("想咨询下X的事") rather than stating."""
    return bool(_HELP.match(text.strip()))


@lru_cache(maxsize=4096)
def _cut(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((w.word, w.flag) for w in pseg.cut(text))


def opens_with_noun(text: str) -> bool:
    """Whether the first word is a noun (推荐信, 介绍信): a request verb inside it (推荐,
    介绍) is then no request."""
    words = [(w, f) for w, f in _cut(text.strip()) if w.strip()]
    return bool(words) and len(words[0][0]) >= 3 and words[0][1][:1] == "n"


# --- whose clause: the user's, without 我 ---------------------------------------------------

_THIRD = ("他", "她", "他们", "她们", "它")
_ASPECT = ("了", "过")


def implied_user(text: str) -> bool:
    """A clause that drops its 我 yet states the user's matter: it opens with a place word
    that owns a thing ("<place>的X都接在Y上", the user's own surroundings), or tells the
    user's own completed action with a counted object ("X找了两位Y"). Never with a
    person's name or a third-person word in it."""
    words = [(w, f) for w, f in _cut(text.strip()) if w.strip()]
    if not words or any(f == "nr" or w in _THIRD for w, f in words):
        return False
    if len(words) > 2 and words[0][1] == "s" and words[1][0] == "的" and words[2][1][:1] == "n":
        return any(f[:1] == "v" for _w, f in words[3:])
    for i in range(len(words) - 2):
        verb, aspect, obj = words[i], words[i + 1], words[i + 2]
        if verb[1][:1] == "v" and aspect[0] in _ASPECT and obj[1][:1] == "m":
            return i > 0 and words[0][1][:1] == "n"  # a topic noun, then the action
    return False


_COPULA = ("是", "在")


def own_subject(text: str) -> bool:
    """Whether the clause has a subject noun of its own before a copula or locative
    ("X 在下午", "X 都在 Y 里", "X是Y"): a statement that stands apart from the
    clause before it."""
    words = [(w, f) for w, f in _cut(text.strip()) if w.strip()]
    i = 0
    while i < len(words) and (words[i][1][:1] == "n" or words[i][1] == "eng"):
        i += 1
    if i == 0 or any(f == "nr" for _w, f in words[:i]):
        return False
    while i < len(words) and words[i][1][:1] == "d":
        i += 1
    return i < len(words) - 1 and words[i][0] in _COPULA


# a supposition with a modal in its main clause: "如果X，我可能会Y" (a rule "如果X就Y" is not)
_SUPPOSE = rx.compile(
    r"^(?:如果|假如|要是|若是|倘若)[^，,。]*[，,\s]+.*(?:可能|也许|或许|说不定|兴许)"
)


def speculative(text: str) -> bool:
    """Whether the clause only supposes: "如果以后X了，我可能会Y"."""
    return bool(_SUPPOSE.match(text.strip()))


# --- what stays unchanged ------------------------------------------------------------------

_KEEP_HEAD = rx.compile(r"^(?:也|都)?(?:还是|仍然是|依然是|仍是|照样是?|照旧是?)")
_KEEP_TAIL = rx.compile(
    r"(?:不变|没变|没有变|不改|没改|照旧|照常|依旧|(?:也|都)?(?:一样|相同|同上)|保持不变|跟之前一样|"
    r"和之前一样|跟原来一样|和原来一样)$"
)
_KEEP_TRAIL = rx.compile(r"[\s，,。.！!；;了的]+$")
_FIRST = rx.compile(r"我|咱")
_KEEP_MAX = 14


def keep_clause(text: str) -> bool:
    """Whether the clause only says a part stays as it was: "日期不变", "还是 24 号",
    "人数也一样", "其他照旧". Such a clause binds to the change it qualifies."""
    clean = _KEEP_TRAIL.sub("", text.strip())
    if not clean or len(clean) > _KEEP_MAX or _FIRST.search(clean):
        return False
    return bool(_KEEP_HEAD.match(clean) or _KEEP_TAIL.search(clean))


def kept_lead(text: str) -> int:
    """The length of a keep clause ``text`` opens with, with its comma ("时间不变，…"), or 0."""
    m = _PUNCT.search(text)
    if m is None or not keep_clause(text[: m.start()]):
        return 0
    return m.end()


def head_len(text: str) -> int:
    """The length of ``text`` before its first keep clause after a comma (all of it when
    there is none): a slot is read from the changed part only."""
    for i, ch in enumerate(text):
        if ch in "，,；;":
            piece = _PUNCT.split(text[i + 1 :], 1)[0]
            if keep_clause(piece):
                return i
    return len(text)


# --- carry-over: the changed part put into the fact it changes ------------------------------

_CHANGE_TO = rx.compile(r"(?:改成|换成|改为|改到|换到|改在|挪到|变成|调到|调成|定在)了?")
_FRAME = ("在", "到", "去", "用", "于")
_PLACE_FRAMES = ("在", "到", "去", "于")


def _timelike(phrase: str) -> bool:
    """A phrase of times and numbers (a when, not a where)."""
    return all(
        f[:1] in ("t", "m", "q") or f == "l" or w.startswith("每")
        for w, f in _cut(phrase)
        if w.strip()
    )


_STOP_FLAGS = ("v", "u", "y", "c", "d", "x")


def _changed_value(head: str) -> tuple[str, str] | None:
    """(frame, value) of "X改成在Y…" / "X改到Y": the new value and the preposition before it."""
    m = _CHANGE_TO.search(head)
    if not m:
        return None
    words = [(w, f) for w, f in _cut(head[m.end() :].strip())]
    verb = m.group(0).rstrip("了")
    frame = verb[-1] if verb[-1] in _FRAME else ""
    if words and words[0][0] in _FRAME:
        frame, words = words[0][0], words[1:]
    value = ""
    for word, flag in words:
        if _PUNCT.search(word) or (flag[:1] in _STOP_FLAGS and not _DIGIT.search(word)):
            if not word.strip() and value:
                value += word
                continue
            break
        value += word
    value = value.strip()
    return (frame, value) if 1 <= len(value) <= 16 else None


def _framed(words: list[tuple[str, str]], frame: str) -> list[str]:
    """The phrases that follow ``frame`` in ``words``, up to the next verb or punctuation."""
    out: list[str] = []
    for i, (word, flag) in enumerate(words):
        if word != frame or flag[:1] != "p":
            continue
        phrase = ""
        for w, f in words[i + 1 :]:
            if _PUNCT.search(w) or f[:1] in ("v", "u", "x"):
                break
            phrase += w
        if phrase:
            out.append(phrase)
    return out


def carry_over(new: str, old: str) -> str | None:
    """The older Fact's content with the changed part put in, when ``new`` changes one part
    and says the rest stays ("X改成在Y吃了，日期不变"): "<old with Y for the old value>".
    None when ``new`` keeps nothing, or the old value to replace is not one clear phrase."""
    cut = head_len(new)
    lead = kept_lead(new)
    if cut == len(new) and not lead:
        return None  # no kept part: the new Fact stands on its own
    found = _changed_value(new[lead:cut])
    if found is None or found[1] in old:
        return None
    frame, value = found
    words = list(_cut(old))
    spots = _framed(words, frame) if frame else []
    if frame in _PLACE_FRAMES and not _timelike(value):  # "改到 Y" for "在 X": a place
        framed = spots or [s for f in _PLACE_FRAMES for s in _framed(words, f)]
        spots = [s for s in framed if not _timelike(s)]
    if not spots:  # a time or a name: the one word of the same shape ("周三" for "周五")
        spots = [
            w
            for w, f in words
            if len(w) >= 2 and f[:1] in ("t", "n") and (w[0] == value[0] or w[-1] == value[-1])
        ]
    spots = list(dict.fromkeys(spots))
    if len(spots) != 1:
        return None
    return old.replace(spots[0], value, 1)


# --- bound goal and limit ---------------------------------------------------------------------

_GOAL = rx.compile(r"(?:想|要|打算|准备|计划|需要)(?:再|先|还|去|给)?[\u4e00-\u9fff]")
_LIMIT = rx.compile(
    r"^(?P<attr>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:最好|尽量|一定|也)?"
    r"(?:别|不要|不能|不得|不超过|不高于|不低于|不少于|最多|最少|至少|控制在|限制在|低于|高于|少于)"
)


_WISH = rx.compile(r"^(?:想|希望|打算|准备|计划)")


def wish_start(text: str) -> bool:
    """Whether the clause opens with the user's wish or plan verb (想…, 打算…)."""
    return bool(_WISH.match(text))


def bound_to_goal(prev: str, text: str) -> bool:
    """Whether ``text`` is a numeric limit with no subject of its own ("年费别超过 N")
    that qualifies the goal stated just before it ("想再买一份X")."""
    clean = text.strip()
    if _FIRST.search(clean) or not _DIGIT.search(clean) or not _GOAL.search(prev):
        return False
    return bool(_LIMIT.match(clean))


# --- route slots: where something goes ------------------------------------------------------

_ROUTE = rx.compile(
    r"^(?:改|也|都|统一|一律|还|就|再|会|要|得)*(?P<v>(?:转|改)?(?:发|寄|送|存|放|传|上传|同步|提交|交|投|抄送)"
    r"(?:到|至|去|在|给)?)"
)
_VALUE_TRAIL = rx.compile(r"(?:里|上|中|内|那儿|那里|了|吧|啊|呀|哦)+$")
_SKIP_FLAGS = ("d", "f", "t", "m", "q", "p")
_NOT_PLACE = ("d", "a", "t", "u", "y", "c", "r", "m")  # "存在很久": no place follows


def _route_verb(rest: str) -> tuple[int, int] | None:
    """(start, end) of the route verb that ``rest`` opens with, after adverbs."""
    m = _ROUTE.match(rest)
    if not m:
        return None
    s, e = m.start("v"), m.end("v")
    word = rest[s : e + 1]
    if e - s == 1 and len(word) == 2 and jieba.dt.FREQ.get(word):
        return None  # 发现, 发展, 存在, 交流: a word of its own, not the route verb
    return s, e


def _idle_after(words: list[tuple[str, str]], end: int) -> bool:
    """Whether the first word that starts at or after ``end`` is no place: an adverb, an
    adjective or a time word ("存在很久了")."""
    pos = 0
    for word, flag in words:
        if pos >= end and word.strip():
            return flag[:1] in _NOT_PLACE
        pos += len(word)
    return False


def route_slot(text: str) -> tuple[str, str] | None:
    """("X:去向", Y) for "X（每月 / 以后 / 也）发到 Y": the attribute is the noun the clause
    opens with (after 我们组的 / 我的), the value what follows the route verb."""
    words = [(w, f) for w, f in _cut(text.strip())]
    for i, (word, flag) in enumerate(words):
        # jieba tags many topic nouns as verbs (快递, 外卖): a two-character word will do
        if not (flag[:1] == "n" or flag in ("v", "vn", "eng")) or len(word) < 2:
            continue
        if _ROUTE.fullmatch(word):
            continue
        before = "".join(w for w, _f in words[:i]).strip()
        if before and not before.endswith("的") and before not in ("我", "我们", "我把"):
            continue
        j = i + 1
        while j < len(words) and (
            not words[j][0].strip()
            or words[j][1][:1] in _SKIP_FLAGS
            or words[j][0].startswith("每")
            or (words[j][1] == "x" and _DIGIT.search(words[j][0]))
        ):
            j += 1
        rest = "".join(w for w, _f in words[j:])
        verb = _route_verb(rest)
        if verb is None:
            continue  # "我们部门的考勤表…": the owner's noun, the attribute comes next
        value = _PUNCT.split(rest[verb[1] :].strip(), 1)[0] if rest else ""
        value = _VALUE_TRAIL.sub("", value.strip()).strip()
        if 1 <= len(value) <= 24 and not _idle_after(words[j:], verb[1]):
            return f"{word}:去向", value
        return None
    return None


__all__ = [
    "TOPIC_LEAD",
    "asks_for_help",
    "bound_to_goal",
    "carry_over",
    "demonstrative",
    "head_len",
    "implied_user",
    "keep_clause",
    "opens_with_noun",
    "own_subject",
    "route_slot",
    "speculative",
    "topic_lead_only",
    "topic_led",
    "wish_start",
]
