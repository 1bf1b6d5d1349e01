"""A short user turn that answers the assistant's question just before it.

The answer takes its attribute from the question, by structure only:

- a wh-question ("您希望A离B多远？", "What time should I set it for?") and a
  fragment answer ("半小时以内吧", "7pm"): the question's frame with the wh-phrase filled
  by the answer's value, the addressee turned into the user, hedges and particles dropped;
- a yes/no question ("Should I reserve a quiet table for your team lunches?") and a yes-like
  answer ("Yes, always."): the question's proposition as the user's statement, with the
  answer's adverbs; a no-like answer ("not really", "不用了") stores nothing of it;
- options the assistant listed ("1. X 2. Y", "X还是Y", "X or Y") and the user's pick
  ("the second one", "就第二个吧", or the option named): the option chosen, by its name.

The Fact cites both turns: the user's turn (the statement) and the assistant's (context).
A turn that is not an answer (a statement of its own, or no question before it) is left
to the clause analysis of ``facts``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from spacy.language import Language
from spacy.tokens import Doc, Token

from extract.chat.clause import _kind_en, _kind_zh
from extract.chat.tokens import _key
from extract.packs import current as current_pack
from extract.text import rx
from extract.text.lang import detect_lang
from extract.text.nlp import entity_refs
from extract.text.timecues import resolve_relative_days, time_range
from extract.text.zh_words import cut_zh
from extract.types import Extraction, FactDraft, Kind, Lang, MessageRecord, Rejection

# --- closed-class words -------------------------------------------------------------------

_YES_EN = rx.compile(
    r"(?i)^(?:yes|yeah|yep|yup|sure|ok|okay|of course|definitely|absolutely|certainly|"
    r"please do|please|right|correct|exactly|indeed|always|that's right|sounds good)\b"
)
_NO_EN = rx.compile(
    r"(?i)^(?:no|nope|nah|not really|not at all|not now|never|don't|do not|"
    r"i don't think so|no thanks|no thank you)\b"
)
_YES_ZH = rx.compile(
    r"^(?:是的|是啊|是呀|对的|对啊|对呀|没错|好的|好啊|好呀|可以|当然|需要|行啊|行|"
    r"要的|要|对|是|好|嗯嗯|嗯)"
)
_NO_ZH = rx.compile(r"^(?:不是|不用|不要|不需要|不必|不对|没有|不了|算了|不行|别|没|不)")
# a Chinese yes/no question: V不V ("要不要", "是不是", "能不能") or a final 吗
_YES_NO_Q_ZH = rx.compile(
    r"(要不要|是不是|能不能|可不可以|会不会|有没有|需不需要|想不想|用不用|好不好|对不对)|吗[？?]?\s*$"
)
_NOT_YES_ZH = rx.compile(r"^(?:不错|要不|好像|是不是|对不对|可以吗|行不行)")
# yes-words, politeness and intensifiers: never an adverb the answer adds
_PLAIN_EN = {
    "yes", "yeah", "yep", "yup", "sure", "ok", "okay", "definitely", "absolutely",
    "certainly", "please", "right", "correct", "exactly", "indeed", "course", "of", "that",
    "sounds", "good", "thanks", "thank", "you", "so", "very", "too", "just", "do", "'s",
}  # fmt: skip
# hedges and particles around a value
_HEDGE_EN = rx.compile(
    r"(?i)^(?:(?:um+|uh+|hmm+|well|maybe|perhaps|probably|i think|i guess|i'd say|"
    r"i would say|i suppose|let's say|say|ideally)\b[\s,]*){1,3}"
)
_HEDGE_TAIL_EN = rx.compile(
    r"(?i)(?:[\s,]+(?:i think|i guess|i'd say|i suppose|probably|maybe|please|thanks|"
    r"or so|is fine|would be fine|would be great|works))+[\s.!?]*$"
)
_HEDGE_ZH = rx.compile(r"^(?:嗯+|呃+|额+|哦+|噢+|啊+|那就|那|就|我觉得|我看|我想想|感觉|应该)+")
_HEDGE_TAIL_ZH = rx.compile(
    r"(?:就行了|就行|就好了|就好|就可以了|就可以|即可|吧|啊|呀|哦|啦|哈|呢|嘛|了吧)+$"
)
_THANKS = rx.compile(r"(?i)谢谢|多谢|thanks|thank you|了")
_PUNCT = rx.compile(r"^[\s,，。.!！?？;；:：~～…、]+|[\s,，。.!！?？;；:：~～…、]+$")
# a question's tail that only asks for confirmation ("…, right?", "…，对吧？")
_TAG_EN = rx.compile(
    r"(?i)[\s,]+(?:right|correct|is that right|is that correct|isn't it|aren't you|don't you|"
    r"yes|no|or not)\s*$"
)
_TAG_ZH = rx.compile(r"[，,]?(?:对吧|是吧|对不对|是不是|好吗|可以吗|行吗|对吗|是吗|吗|吧|呢|么)$")
_WH_ZH = rx.compile(
    r"什么时候|什么样|多长时间|多久|多远|多大|多高|多长|多重|多少|几点|几|哪里|哪儿|哪个|哪些|"
    r"哪种|哪家|哪天|哪|谁|怎么样|怎样|怎么|如何|什么"
)
_ASK_LEAD_ZH = rx.compile(r"^(?:请问|那么|那|好的|好|嗯)+")
# the assistant acting for the user ("我帮您", "给您"): the user's matter, done for them
_FOR_YOU_ZH = rx.compile(r"(?:我们|咱们|我)?(?:可以|来|能|先)?(?:帮|给|为|替)(?:您们|你们|您|你)")
_SELF_ZH = rx.compile(r"^(?:我们|我)(?:可以|来|能|先|要)?")
_YOU_ZH = rx.compile(r"您们|你们|您|你")
_ALT_ZH = "还是"
_ORDINAL_EN = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3,
    "4th": 4, "5th": 5, "former": 1, "last": -1, "latter": -1,
}  # fmt: skip
_PICK_EN = rx.compile(
    r"(?i)(?:option|number|no\.?|#|choice|pick|take)\s*(?P<n>\d{1,2})\b|^(?P<d>\d{1,2})\s*[.!]?$"
)
_ZH_DIGITS = "一二三四五六七八九十"
_ZH_NUMERALS = "零一二两三四五六七八九十百千万半几"
_PICK_ZH = rx.compile(
    r"第\s*(?P<n>[一二三四五六七八九十\d]{1,2})|(?P<q>[一二三四五六七八九十\d]{1,2})\s*号|"
    r"选\s*(?P<s>[一二三四五六七八九十\d]{1,2})|(?P<first>前者|前一个)|"
    r"(?P<last>后者|后一个|最后一个|最后那个)"
)
# list markers: "1. X", "2) Y", "A、Z", "①", at a line's start, after a space or after the
# punctuation that ends the option before ("；2. Y")
_MARKER = rx.compile(
    r"(?:^|[\n\s：:；;，,。])(?P<label>\d{1,2}|[A-Ha-h]|[①②③④⑤⑥⑦⑧⑨])(?:[.)、：:）]|\s*[)）])\s*"
)
_CIRCLED = "①②③④⑤⑥⑦⑧⑨"
_OPTION_END = rx.compile(r"[\n？?！!。；;]|\.\s")
_SENT_END = rx.compile(r"[。！!？?\n]")
_CLAUSE = rx.compile(r"[，,；;]")
_WORD = rx.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")

USER_EN = "the user"
USER_ZH = "用户"
ASSISTANT_EN = "the assistant"
MAX_ANSWER_EN = 12  # words: longer turns state something of their own
MAX_ANSWER_ZH = 24  # characters

_SELF_EN = {"i", "me", "we", "us", "my", "our", "myself", "ourselves"}
_YOU_EN = {"you", "your", "yours", "yourself", "yourselves", "u"}
_WH_TAGS = {"WDT", "WP", "WP$", "WRB"}
_STATE_EN = {"be", "do", "go", "feel"}  # "how are you", "how did it go": small talk
_ASKS_USER = {"can", "could", "will"}  # "Can you …?": a request to the user, not about them
# frequency adverbs that stand before the verb ("always wants"); others go after it
_FREQUENCY = {"always", "never", "often", "usually", "sometimes", "seldom", "rarely", "normally"}
_CONTRACTED = {"'s": "is", "'re": "are", "'d": "would", "'ll": "will", "'ve": "have", "'m": "am"}
_HELP_EN = {"do", "help", "assist"}  # light verbs of an offer of help
# "有什么可以帮您", "您需要我做什么": the assistant offers help (light verbs, closed class)
_OFFER_ZH = rx.compile(r"什么(?:可以|能|需要|要)?(?:帮|为|给|效劳)|(?:做|干|办|帮)(?:些|点)?什么")


@dataclass(frozen=True)
class Answer:
    """What a turn says as an answer: its Extraction, and whether that is all of it
    (``whole``) or the turn says more the clause analysis should read too."""

    extraction: Extraction
    whole: bool = True


# --- the question -------------------------------------------------------------------------


def _question(asked: str) -> str | None:
    """The assistant turn's last question (a sentence ending with a question mark, or a
    Chinese one with an interrogative particle); None when it asks nothing."""
    text = asked.strip()
    ends = [m.end() for m in _SENT_END.finditer(text)]
    starts = [0, *ends]
    sents = [text[s:e] for s, e in zip(starts, [*ends, len(text)], strict=True)]
    for s in reversed(sents):
        s = s.strip()
        if s.endswith(("?", "？")) or (_han_end(s) and s.rstrip("。.").endswith(("吗", "呢"))):
            return s
    return None


def _han_end(s: str) -> bool:
    """The sentence ends with a Chinese character (before its full stop)."""
    return bool(s) and "\u4e00" <= s.rstrip("。.")[-1:] <= "\u9fff"


def _clean_value(text: str, zh: bool) -> str:
    """The answer's value: without hedges, particles and punctuation around it."""
    out = _PUNCT.sub("", text.strip())
    for _ in range(2):
        if zh:
            out = _PUNCT.sub("", _HEDGE_TAIL_ZH.sub("", _HEDGE_ZH.sub("", out)))
        else:
            out = _PUNCT.sub("", _HEDGE_TAIL_EN.sub("", _HEDGE_EN.sub("", out)))
    return out


# --- options ------------------------------------------------------------------------------


def _label_index(label: str) -> int:
    if label in _CIRCLED:
        return _CIRCLED.index(label) + 1
    if label.isdigit():
        return int(label)
    return ord(label.lower()) - ord("a") + 1


def listed_options(asked: str) -> tuple[str, ...]:
    """Options the assistant listed with markers (1. 2. / A) B) / ① ②), in order; only a
    run of at least two that counts up from its first."""
    found = [
        (m.start("label"), m.end(), _label_index(m.group("label"))) for m in _MARKER.finditer(asked)
    ]
    run: list[tuple[int, int, int]] = []
    for item in found:
        if run and item[2] == run[-1][2] + 1:
            run.append(item)
        elif item[2] == 1:
            run = [item]
    if len(run) < 2:
        return ()
    out = []
    for k, (_s, e, _n) in enumerate(run):
        stop = run[k + 1][0] if k + 1 < len(run) else len(asked)
        piece = asked[e:stop]
        cut = _OPTION_END.search(piece)
        piece = piece[: cut.start()] if cut else piece
        out.append(_PUNCT.sub("", piece))
    return tuple(o for o in out) if all(out) else ()


def _alternatives_zh(question: str) -> tuple[str, ...]:
    """ "X还是Y？" and "X、Y还是Z？": the alternatives, the first cut to the length (in words)
    of the last, since what precedes it is the question's frame."""
    body = _TAG_ZH.sub("", _PUNCT.sub("", question))
    body = _CLAUSE.split(body)[-1] if _ALT_ZH in _CLAUSE.split(body)[-1] else body
    if _ALT_ZH not in body:
        return ()
    left, _, last = body.rpartition(_ALT_ZH)
    last = _PUNCT.sub("", last)
    items = [p for p in left.split("、")]
    words = len(cut_zh(last)) or 1
    head = cut_zh(items[0])
    items[0] = "".join(w for w, _f in head[-words:])
    opts = [_PUNCT.sub("", p) for p in [*items, last]]
    return tuple(opts) if all(opts) and len(opts) >= 2 else ()


def _alternatives_en(doc: Doc) -> tuple[str, ...]:
    """ "X or Y?": the conjuncts joined by "or"."""
    for t in doc:
        if t.lower_ == "or" and t.dep_ == "cc":
            first = t.head
            conj = [c for c in first.children if c.dep_ == "conj"]
            if not conj:
                continue
            chain = [first]
            while conj:
                chain.append(conj[0])
                conj = [c for c in conj[0].children if c.dep_ == "conj"]
            return tuple(_conjunct(c, chain) for c in chain)
    return ()


def _conjunct(tok: Token, chain: list[Token]) -> str:
    """A conjunct's words without the conjuncts and conjunctions hanging from it."""
    skip: set[int] = set()
    for c in tok.children:
        if c.dep_ in ("conj", "cc") or c in chain:
            skip |= {x.i for x in c.subtree}
    words = [x for x in tok.subtree if x.i not in skip and not x.is_punct]
    return " ".join(x.text for x in words)


def _zh_number(s: str) -> int | None:
    if s.isdigit():
        return int(s)
    if s == "十":
        return 10
    if len(s) == 1 and s in _ZH_DIGITS:
        return _ZH_DIGITS.index(s) + 1
    if len(s) == 2 and s[0] == "十" and s[1] in _ZH_DIGITS:
        return 10 + _ZH_DIGITS.index(s[1]) + 1
    return None


def _ordinal(answer: str, zh: bool, doc: Doc | None) -> int | None:
    """The position the user picks (1-based; -1 the last), when the answer names one."""
    if zh:
        m = _PICK_ZH.search(answer)
        if not m:
            return None
        if m.group("first"):
            return 1
        if m.group("last"):
            return -1
        return _zh_number(m.group("n") or m.group("q") or m.group("s") or "")
    m = _PICK_EN.search(answer.strip())
    if m:
        return int(m.group("n") or m.group("d"))
    for t in doc or ():
        n = _ORDINAL_EN.get(t.lower_)
        if n is not None and (t.tag_ in ("JJ", "RB", "CD") or t.dep_ in ("amod", "ROOT")):
            return n
    return None


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 or not w.isascii()}


def _named_option(answer: str, options: Sequence[str]) -> int | None:
    """The option the answer names: the one sharing the most of its own words with it
    (words every option has do not tell them apart); None on a tie or no match."""
    said = _words(answer)
    common = set.intersection(*(_words(o) for o in options)) if options else set()
    scores = [len((_words(o) - common) & said) for o in options]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best) + 1


def _picked(answer: str, options: Sequence[str], zh: bool, doc: Doc | None) -> str | None:
    n = _ordinal(answer, zh, doc)
    if n is None:
        n = _named_option(answer, options)
    if n is None or n == 0 or n > len(options):
        return None
    return options[n - 1] if n > 0 else options[-1]


# --- English wording ----------------------------------------------------------------------


class _People:
    """The addressee as the user, the assistant as itself: the first mention by name, the
    next ones as "they", "them", "their"."""

    def __init__(self) -> None:
        self.user_named = False

    def user(self, t: Token) -> str:
        low = t.lower_
        if low in ("your", "yours"):
            word = "their" if self.user_named and low == "your" else "the user's"
        elif low in ("yourself", "yourselves"):
            word = "themselves"
        elif t.dep_ in ("nsubj", "nsubjpass"):
            word = "they" if self.user_named else USER_EN
        else:
            word = "them" if self.user_named else USER_EN
        self.user_named = True
        return word

    @staticmethod
    def assistant(t: Token) -> str:
        return "the assistant's" if t.lower_ in ("my", "our") else ASSISTANT_EN


def _third_person(verb: Token) -> str:
    """A present-tense verb agreeing with "the user"."""
    low = verb.lower_
    forms = {"are": "is", "were": "was", "have": "has", "do": "does", "'re": "is", "'ve": "has"}
    if low in forms:
        return forms[low]
    if verb.tag_ not in ("VBP", "VB"):  # "do you go" -> "goes", "would like" stays
        return verb.text
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb.text + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb.text[:-1] + "ies"
    return verb.text + "s"


def _value_en(value: str) -> str:
    """The user's own words from the user's side: "my" is the user's."""
    out = []
    for w in value.split():
        low = w.lower()
        if low in ("i", "me"):
            out.append(USER_EN)
        elif low in ("my", "mine"):
            out.append("the user's")
        elif low == "myself":
            out.append("themselves")
        else:
            out.append(w)
    return " ".join(out)


def _wh_phrase(w: Token) -> tuple[list[Token], int, int, Token]:
    """The wh-word's phrase (tokens in order) and the [first, last] index of its core, the
    part the answer's value replaces ("how far" in "how far from it")."""
    root, core_end = w, w.i
    if w.lower_ == "how" and w.head.pos_ in ("ADJ", "ADV") and w.head.i == w.i + 1:
        root = core_end_tok = w.head
        core_end = core_end_tok.i
        if root.dep_ == "amod" and root.head.pos_ in ("NOUN", "PROPN"):
            root = root.head  # "how many nights": the noun stays, after the value
    elif w.dep_ == "det" and w.head.pos_ in ("NOUN", "PROPN"):
        root = w.head
        core_end = root.i  # "which airline", "what time": the value replaces both
    if root.dep_ == "pobj" and root.head.i < w.i:
        root = root.head  # "on which day"
    tokens = sorted(root.subtree, key=lambda t: t.i)
    return tokens, w.i, core_end, root


def _declarative_en(
    sent: list[Token], skip: set[int], people: _People
) -> tuple[list[str], Token | None]:
    """The question's words in statement order (subject before its auxiliaries, do-support
    dropped), the people named as the user or the assistant; and the subject."""
    words = [t for t in sent if t.i not in skip and not t.is_punct]
    subj = next((t for t in words if t.dep_ in ("nsubj", "nsubjpass", "expl")), None)
    moved: list[Token] = []
    if subj is not None:
        first = min(x.i for x in subj.subtree)
        moved = [
            t
            for t in words
            if t.i < first
            and (t.dep_ in ("aux", "auxpass") or (t.dep_ == "ROOT" and t.pos_ == "AUX"))
        ]
    order: list[Token] = []
    if subj is not None:  # the subject up to its head: "is your flight in the morning"
        order += [t for t in words if t in set(subj.subtree) and t.i <= subj.i]
    order += moved
    order += [t for t in words if t not in order]
    out: list[str] = []
    verb_fixed = False
    for t in order:
        low = t.lower_
        if t in moved and t.lemma_ == "do" and t.dep_ == "aux" and t.lower_ != "did":
            continue  # "do you prefer" -> "the user prefers"
        if t in moved and low in _CONTRACTED:
            low = _CONTRACTED[low]  # "what's your …" -> "… is"
        if low in _YOU_EN:
            out.append(people.user(t))
        elif low in _SELF_EN:
            out.append(people.assistant(t))
        elif low == "ever" and t.dep_ == "advmod":
            continue  # "have you ever been" -> "the user has been"
        elif low == "any" and t.dep_ == "det":
            out.append("some")  # "do you have any plans" -> "the user has some plans"
        elif (
            not verb_fixed
            and subj is not None
            and subj.lower_ in _YOU_EN
            and t.pos_ in ("AUX", "VERB")
            and t.i != subj.i
        ):
            verb_fixed = True
            out.append(_third_person(t))
        else:
            out.append(low if low != t.lower_ else t.text)
        if t.is_sent_start and t.pos_ != "PROPN" and out:
            out[-1] = out[-1][:1].lower() + out[-1][1:]  # "Would you" -> "… would"
    return out, subj


def _sentence(words: list[str]) -> str:
    text = " ".join(w for w in words if w)
    for a, b in ((" 's", "'s"), (" n't", "n't"), (" ,", ","), (" 're", " are"), (" 'd", " would")):
        text = text.replace(a, b)
    text = text.replace("the user's's", "the user's")
    return text[:1].upper() + text[1:]


def _offer_en(doc: Doc) -> bool:
    """ "What can I do for you?", "Anything else I can help with?": the assistant offers
    help, the answer is a request of its own."""
    for t in doc:
        subj = [c for c in t.children if c.dep_ == "nsubj"]
        if t.lemma_ in _HELP_EN and subj and subj[0].lower_ in _SELF_EN:
            return True
    return False


def _wh_en(doc: Doc, value: str) -> str | None:
    sent = [t for t in doc if not t.is_space]
    w = next((t for t in sent if t.tag_ in _WH_TAGS), None)
    if w is None or _offer_en(doc):
        return None
    main = next((t for t in sent if t.dep_ == "ROOT"), None)
    bare_how = w.lower_ == "how" and w.head.pos_ not in ("ADJ", "ADV")
    if bare_how and main is not None and main.lemma_ in _STATE_EN:
        return None  # "How are you doing?", "How was your weekend?": no attribute
    phrase, core_start, core_end, root = _wh_phrase(w)
    skip = {t.i for t in phrase}
    people = _People()
    bare_number = all(doc.vocab[x].like_num for x in value.split())
    before = [t.text for t in phrase if t.i < core_start]
    after = [t for t in phrase if t.i > core_end]
    noun = [t.text for t in after[:1] if t.pos_ in ("NOUN", "PROPN") and w.lower_ == "how"]
    if noun and not bare_number:
        after = after[1:]
    shown = _value_en(value)
    kind = next((t for t in phrase if t.i == core_end and t.i != w.i), None)
    if kind is not None and w.lower_ != "how":  # "which gym" + "the one on Pine Street"
        shown = _named_kind(shown, kind)
    filled = [*before, shown, *[_pron(t, people) for t in after]]
    if w.lower_ == "where" and not before and value[:1].isupper() and not _has_prep(value):
        filled.insert(0, "in")
    words, subj = _declarative_en(sent, skip, people)
    if root.dep_ in ("nsubj", "nsubjpass"):  # "who will pick you up", "how many people"
        text = _sentence([*filled, *words])
        return text if people.user_named else f"For the user, {text[:1].lower()}{text[1:]}"
    request = subj is not None and subj.lower_ in _SELF_EN
    if request:
        return _request_en(doc, skip, [*filled], "")
    text = _sentence([*words, *filled])
    return text if people.user_named else f"For the user, {text[:1].lower()}{text[1:]}"


def _named_kind(value: str, noun: Token) -> str:
    """The value with the kind of thing asked for: "the one" takes the noun's place, a
    bare name gets it after it ("Pinecrest (N)"); a number or time stays as it is."""
    words = value.split()
    if "one" in [w.lower() for w in words]:
        return " ".join(noun.text if w.lower() == "one" else w for w in words)
    if noun.lemma_.lower() in value.lower() or any(c.isdigit() for c in value):
        return value
    return f"{value} ({noun.text})"


def _has_prep(value: str) -> bool:
    return value.split(" ", 1)[0].lower() in ("in", "at", "on", "near", "by", "to", "from")


def _pron(t: Token, people: _People) -> str:
    if t.lower_ in _YOU_EN:
        return people.user(t)
    if t.lower_ in _SELF_EN:
        return people.assistant(t)
    return t.text


def _request_en(doc: Doc, skip: set[int], tail: list[str], adverb: str) -> str | None:
    """ "Should I book X?" said by the assistant: the user wants X booked: "the user wants
    to book X" (the assistant's auxiliaries and itself left out)."""
    people = _People()
    people.user_named = True  # the sentence opens with "the user"
    verb = next((t for t in doc if t.dep_ == "ROOT"), None)
    if verb is None or verb.pos_ not in ("VERB", "AUX"):
        return None
    rest = [t for t in doc if t.i > verb.i and t.i not in skip and not t.is_punct]
    # "Should I remind you to …": the user is the one acted on, the assistant acts
    acted_on = any(c.lower_ in _YOU_EN and c.dep_ in ("dobj", "dative") for c in verb.children)
    wants = "wants the assistant to" if acted_on else "wants to"
    words = [USER_EN, adverb, wants, verb.lemma_, *[_pron(t, people) for t in rest], *tail]
    return _sentence(words)


def _yes_no_en(doc: Doc, adverb: str) -> str | None:
    sent = [t for t in doc if not t.is_space]
    subj = next((t for t in sent if t.dep_ in ("nsubj", "nsubjpass", "expl")), None)
    if subj is not None and subj.lower_ in _SELF_EN and subj.head.dep_ == "ROOT":
        return _request_en(doc, set(), [], adverb)
    first = sent[0] if sent else None
    asks = first is not None and first.lower_ in _ASKS_USER
    if asks and subj is not None and subj.lower_ in _YOU_EN:
        return None  # "Can you tell me more?": the assistant asks the user to do it
    people = _People()
    words, subj = _declarative_en(sent, set(), people)
    if adverb and subj is not None and adverb.lower() in _FREQUENCY:
        n = len([x for x in subj.subtree if x.i <= subj.i])
        at = n + (1 if len(words) > n and _is_aux(words[n]) else 0)
        words.insert(at, adverb)
    elif adverb:
        words.append(adverb)  # "twice", "every time": after what it counts
    text = _sentence(words)
    return text if people.user_named else f"For the user, {text[:1].lower()}{text[1:]}"


def _is_aux(word: str) -> bool:
    return word.lower() in (
        "is", "was", "has", "does", "did", "would", "will", "should", "can", "could",
        "shall", "may", "might", "must",
    )  # fmt: skip


def _adverbs_en(doc: Doc) -> str:
    """Adverbs the answer adds to its yes ("always", "every time"), not yes-words."""
    out: list[str] = []
    for t in doc:
        if t.lower_ in _PLAIN_EN or t.is_punct:
            continue
        if t.pos_ == "ADV" or (t.dep_ == "npadvmod" and t.pos_ == "NOUN"):
            words = [x.text for x in t.subtree if not x.is_punct] if t.pos_ == "NOUN" else [t.text]
            out += words
    return " ".join(dict.fromkeys(out))


# --- Chinese wording ----------------------------------------------------------------------


def _bounds(text: str) -> set[int]:
    """Character offsets between the words of `text` (jieba)."""
    out, at = {0}, 0
    for w, _f in cut_zh(text):
        at += len(w)
        out.add(at)
    return out


def _merge(a: str, b: str, counted: bool = False) -> str:
    """a + b without the words both say where they meet ("安静的" + "的房间" -> "安静的房间");
    after a number question (`counted`: 几, 多少) the measure word ("三个" + "个人")."""
    if counted and b and any(c.isdigit() or c in _ZH_NUMERALS for c in a[:1]):
        if a[-1:] not in _ZH_NUMERALS and not a[-1:].isdigit():
            b = b[1:]  # "几口人" + "四口人": the value brings its own measure word
        for k in range(min(len(a), len(b)), 0, -1):
            if a.endswith(b[:k]):
                return a + b[k:]
        return a + b
    ends, starts = _bounds(a), _bounds(b)
    for k in range(min(len(a), len(b), 6), 0, -1):
        if a.endswith(b[:k]) and len(a) - k in ends and k in starts:
            return a + b[k:]
    return a + b


def _frame_zh(question: str) -> str:
    """The question clause that asks, without its tail particle, lead words and the
    assistant's "我帮您", the addressee named as the user."""
    body = _PUNCT.sub("", question)
    clauses = [c for c in _CLAUSE.split(body) if c.strip()]
    asking = [c for c in clauses if _WH_ZH.search(c) or _ALT_ZH in c]
    body = (asking or clauses or [body])[-1]
    body = _TAG_ZH.sub("", _ASK_LEAD_ZH.sub("", body.strip()))
    body = _SELF_ZH.sub("", _FOR_YOU_ZH.sub("", body))
    return _a_not_a(body)


def _a_not_a(text: str) -> str:
    """ "要不要" -> "要", "需不需要" -> "需要", "有没有" -> "有": the positive of an A-not-A
    question."""
    out = text
    for neg in ("不", "没"):
        i = out.find(neg, 1)
        while 0 < i < len(out) - 1:
            if out[i - 1] == out[i + 1]:
                out = out[: i - 1] + out[i + 1 :]
                break
            i = out.find(neg, i + 1)
    return out.replace("是否", "")


def _as_user_zh(frame: str, adverb: str = "") -> str:
    """The frame as the user's statement: the addressee is the user; without one, the user
    is its subject (a noun frame is the user's: "用户的…")."""
    if _YOU_ZH.search(frame):
        head = _YOU_ZH.search(frame)
        assert head is not None
        rest = _YOU_ZH.sub(USER_ZH, frame[head.end() :])
        return frame[: head.start()] + USER_ZH + adverb + rest
    words = cut_zh(frame)
    noun = bool(words) and words[0][1][:1] in ("n", "r") and words[0][1] != "nr"
    return USER_ZH + adverb + ("的" if noun and not adverb else "") + frame


def _wh_zh(question: str, value: str) -> str | None:
    if _OFFER_ZH.search(question):
        return None
    frame = _frame_zh(question)
    m = _WH_ZH.search(frame)
    if m is None:
        return None
    head = frame[: m.start()]
    tail = frame[m.end() :]
    counted = m.group(0) in ("几", "多少")
    if m.group(0) in ("哪个", "哪家", "哪种", "什么") and tail:
        tail = _named_kind_zh(value, tail)
    for k in range(min(len(head), len(value), 6), 1, -1):
        if head.endswith(value[:k]):  # "离地铁站多远" + "离地铁站十分钟"
            value = value[k:]
            break
    return _as_user_zh(head + _merge(value, tail, counted))


def _named_kind_zh(value: str, tail: str) -> str:
    """ "哪个幼儿园" + "阳光幼儿园": the name says its kind (a shared morpheme), so the kind
    noun after the wh-word goes; else it stays ("秋天" + "季节")."""
    words = cut_zh(tail)
    if not words or words[0][1][:1] != "n":
        return tail
    last = cut_zh(value)[-1][0] if value else ""
    return tail[len(words[0][0]) :] if set(words[0][0]) & set(last) else tail


def _yes_no_zh(question: str, adverb: str) -> str | None:
    frame = _frame_zh(question)
    if not frame or _WH_ZH.search(frame):
        return None
    return _as_user_zh(frame, adverb)


def _adverbs_zh(rest: str) -> str:
    """Time and frequency adverbs the answer adds to its yes ("以后都", "每次")."""
    return "".join(
        w for w, f in cut_zh(rest) if f[:1] in ("d", "t", "f") or w.startswith("每") or w == "都"
    )


# --- the answer ---------------------------------------------------------------------------


def _short(text: str, zh: bool) -> bool:
    return len(text) <= MAX_ANSWER_ZH if zh else len(text.split()) <= MAX_ANSWER_EN


def _fragment_en(doc: Doc) -> bool:
    """No clause of its own: no subject anywhere and no imperative ("within a ten-minute
    walk", "7pm"; not "book a table for two")."""
    if any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in doc):
        return False
    finite = ("VB", "VBD", "VBZ", "VBP")  # "book a table", "loved it": a clause of its own
    return not any(t.dep_ == "ROOT" and t.pos_ == "VERB" and t.tag_ in finite for t in doc)


def _fragment_zh(text: str) -> bool:
    """No first person: a value, not a statement of the user's own ("我住在…")."""
    return "我" not in text


def _draft(
    msg: MessageRecord, content: str, lang: Lang, nlp: Language, kind: Kind | None = None
) -> FactDraft:
    doc = nlp(content)
    if kind is None:
        kind = _kind_zh(content)[0] if lang == "zh" else _kind_en(content, list(doc))[0]
    content = resolve_relative_days(content, msg.timestamp, lang == "zh")
    span = time_range(content, msg.timestamp, future=kind == "plan")
    start, end = span if span else (msg.timestamp, msg.timestamp)
    sources = (msg.message_id, msg.asked_id) if msg.asked_id else (msg.message_id,)
    labels = tuple(dict.fromkeys([kind, "answer", *current_pack().labels_in(content)]))
    return FactDraft(
        content=content,
        kind=kind,
        source_message_ids=sources,
        time_start=start,
        time_end=end,
        lang=lang,
        entities=entity_refs(doc, 0, len(content)),
        labels=labels,
        key=_key(kind, None, content),
    )


def _rejection(msg: MessageRecord, reason: str) -> Answer:
    r = Rejection(source_message_ids=(msg.message_id,), reason=reason, text=msg.content.strip())
    return Answer(Extraction(facts=(), rejections=(r,)))


def _fact(
    msg: MessageRecord,
    content: str | None,
    lang: Lang,
    nlp: Language,
    kind: Kind | None = None,
    whole: bool = True,
) -> Answer | None:
    if not content:
        return None
    return Answer(Extraction(facts=(_draft(msg, content, lang, nlp, kind),)), whole=whole)


_FIRST_CLAUSE = rx.compile(r"[^，,。；;！!？?]+")


def _pick_only(
    msg: MessageRecord, text: str, zh: bool, lang: Lang, en_nlp: Language, zh_nlp: Language
) -> Answer | None:
    """A pick among options the assistant listed as a statement ("Here are three: 1) …")."""
    options = listed_options(msg.asked or "")
    head = _FIRST_CLAUSE.match(text)  # "就第二个吧，那天正好有空": the pick leads
    text = head.group(0) if head else text
    if not options or not _short(text, zh):
        return None
    chosen = _picked(text, options, zh, None if zh else en_nlp(text))
    if not chosen:
        return None
    content = f"{USER_ZH}选择了{chosen}" if zh else f"The user chose {chosen}"
    return _fact(msg, content, lang, zh_nlp if zh else en_nlp, kind="preference")


def answered(msg: MessageRecord, en_nlp: Language, zh_nlp: Language) -> Answer | None:
    """The turn as an answer to the assistant's question before it; None when it is not
    one (no question before it, or a statement of its own)."""
    if not msg.asked or msg.role != "user":
        return None
    question = _question(msg.asked)
    text = msg.content.strip()
    if not text:
        return None
    lang: Lang = "zh" if detect_lang(text, default=msg.lang) == "zh" else "en"
    zh = lang == "zh"
    if question is None:  # options listed without a question: only a pick binds to them
        return _pick_only(msg, text, zh, lang, en_nlp, zh_nlp)
    q_zh = detect_lang(question, default=lang) == "zh"
    if not _short(text, zh):
        return None
    nlp = zh_nlp if zh else en_nlp
    q_nlp = zh_nlp if q_zh else en_nlp
    adoc = None if zh else en_nlp(text)
    # English: parsed without a confirmation tag ("…, right?")
    qdoc = None if q_zh else en_nlp(_TAG_EN.sub("", _PUNCT.sub("", question)) + "?")
    options = listed_options(msg.asked) or (
        _alternatives_zh(question) if q_zh else _alternatives_en(qdoc) if qdoc else ()
    )
    if options:
        chosen = _picked(text, options, zh, adoc)
        if chosen:
            content = f"{USER_ZH}选择了{chosen}" if zh else f"The user chose {chosen}"
            return _fact(msg, content, lang, nlp, kind="preference")
    if _OFFER_ZH.search(question) if q_zh else qdoc is not None and _offer_en(qdoc):
        return _declined(msg, text, zh)  # "Anything else I can help with?" + "no"
    # a yes/no question ("要不要…几瓶…？", "…吗？") asks no wh: its 几/什么 are indefinite
    wh = (
        bool(_WH_ZH.search(_frame_zh(question))) and not _YES_NO_Q_ZH.search(question)
        if q_zh
        else _has_wh(qdoc)
    )
    if wh:
        value = _clean_value(text, zh)
        if not value or not (_fragment_zh(value) if zh else _fragment_en(en_nlp(value))):
            return None
        if q_zh != zh:
            return None  # the frame and the value in two languages: left as said
        bound = _wh_zh(question, value) if zh else _wh_en(qdoc, value) if qdoc else None
        return _fact(msg, bound, lang, q_nlp)
    return _yes_no(msg, text, question, lang, q_zh, nlp, adoc, qdoc)


def _declined(msg: MessageRecord, text: str, zh: bool) -> Answer | None:
    """A plain no to an offer: nothing stored; with more said, the clause analysis reads it."""
    plain = zh and _NOT_YES_ZH.match(text) is not None
    no = None if plain else (_NO_ZH if zh else _NO_EN).match(text)
    if no is None or len(_clean_value(_THANKS.sub("", text[no.end() :]), zh)) > (2 if zh else 3):
        return None
    return _rejection(msg, "declines the assistant's offer: nothing stored")


def _has_wh(doc: Doc | None) -> bool:
    return doc is not None and any(t.tag_ in _WH_TAGS for t in doc)


def _yes_no(
    msg: MessageRecord,
    text: str,
    question: str,
    lang: Lang,
    q_zh: bool,
    nlp: Language,
    adoc: Doc | None,
    qdoc: Doc | None,
) -> Answer | None:
    zh = lang == "zh"
    plain = zh and _NOT_YES_ZH.match(text) is not None  # "不错", "要不…": neither
    no = None if plain else (_NO_ZH if zh else _NO_EN).match(text)
    if no is not None:
        rest = _clean_value(text[no.end() :], zh)
        if rest and len(rest) > (2 if zh else 3):
            return Answer(Extraction(facts=()), whole=False)  # "no, I prefer X": X is read
        return _rejection(msg, "declines the assistant's question: nothing of it stored")
    yes = None if plain else (_YES_ZH if zh else _YES_EN).match(text)
    if yes is None or q_zh != zh:
        return None
    rest = _clean_value(text[yes.end() :], zh)
    if zh:
        adverb = _adverbs_zh(rest)
        content = _yes_no_zh(question, adverb)
    else:
        adverb = _adverbs_en(adoc) if adoc is not None else ""
        content = _yes_no_en(qdoc, adverb) if qdoc is not None else None
    said_more = bool(rest) and len(rest) > len(adverb) + (2 if zh else 12)
    # yes to what the assistant offers to do ("Should I …?"): what the user wants done
    offered = qdoc is not None and any(
        t.dep_ == "nsubj" and t.lower_ in _SELF_EN and t.head.dep_ == "ROOT" for t in qdoc
    )
    kind: Kind | None = "preference" if offered else None
    return _fact(msg, content, lang, nlp, kind=kind, whole=not said_more)


def joined(answer: Answer | None, said: Extraction) -> Extraction:
    """The answer's Facts beside what the clause analysis found in the rest of the turn
    (its rejections of the bare answer words dropped when the answer gave a Fact)."""
    if answer is None:
        return said
    facts = (*answer.extraction.facts, *said.facts)
    rejections = said.rejections if not answer.extraction.facts else ()
    return replace(said, facts=facts, rejections=(*answer.extraction.rejections, *rejections))


@dataclass(frozen=True)
class Turn:
    """A chat turn as the question finder needs it (an assistant turn with its text)."""

    message_id: str
    session_id: str
    role: str
    timestamp: datetime
    content: str | None = None


def with_questions(
    msgs: Sequence[MessageRecord], turns: Iterable[Turn] | None = None
) -> list[MessageRecord]:
    """Each user chat turn of `msgs` with `asked`: the assistant turn just before it in its
    session among `msgs` and `turns` (the stored turns around them), none when the turn
    before it is the user's own. In the order given."""
    every = {t.message_id: t for t in turns or ()}
    for m in msgs:
        if m.event_type == "message" and m.message_id not in every:
            every[m.message_id] = Turn(m.message_id, m.session_id, m.role, m.timestamp, m.content)
    last: dict[str, Turn] = {}
    before: dict[str, Turn] = {}
    for t in sorted(every.values(), key=lambda t: (t.timestamp, t.message_id)):
        if t.role not in ("user", "assistant"):
            continue
        prev = last.get(t.session_id)
        if t.role == "user" and prev is not None and prev.role == "assistant" and prev.content:
            before[t.message_id] = prev
        last[t.session_id] = t
    out = []
    for m in msgs:
        q = before.get(m.message_id) if m.role == "user" and m.event_type == "message" else None
        out.append(replace(m, asked=q.content, asked_id=q.message_id) if q else m)
    return out


__all__ = ["Answer", "Turn", "answered", "joined", "listed_options", "with_questions"]
