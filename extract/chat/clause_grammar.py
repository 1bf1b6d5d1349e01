"""Clause structure beyond punctuation: where one sentence holds several statements, which
verbless clauses are the user's negative constraints, and which conditionals are only
hypothetical. English through spaCy's dependency parse, Chinese and mixed zh/en turns
through jieba's part-of-speech tags. Only grammar words live here, never domain words.

- **Coordinated predicates** ("do A in X and B in Y, and always add Z at the end"): a
  conjunct that is a predicate of its own, with its own complement, is a statement of its
  own; coordinated *arguments* of one predicate ("A in X and B in Y") stay one statement,
  and so does a conjunct that points back to the first ("got an X and use it daily").
- **Parallel topic-comment clauses** (zh/mixed, "A 是 X，B 在 Y，C 都在 Z"): comma pieces that
  each open with their own noun-phrase subject and a verbal predicate are separate
  statements, and when the first names an owner ("我们 X 的 A 是 …") the later bare subjects
  are that owner's (see ``possessor_zh``); a piece after an action clause ("我买了 X，Y 是
  Z") describes what that clause introduced and stays bound to it.
- **Negative constraints** ("no X", "nothing with X", "absolutely no X", "no X allowed",
  "X-free only"): a clause led by a negative quantifier with no finite main verb of its own
  is what the user wants to be without, stated without "I".
- **Hypotheticals**: a conditional ("如果 …，…", "if …, …") whose main clause only says what
  might happen (可能/也许/说不定, might/may/probably) is not a fact about the user; a
  conditional with a plain or instructing main clause ("如果超过 500，就先问我", "if X is
  late, do Y") is a standing rule and stays.
"""

from __future__ import annotations

from spacy.tokens import Token

from text import rx
from text.zh_words import cut_zh

# --- English: coordinated predicates ------------------------------------------------------

# complements that make a conjunct a predicate of its own
_COMPLEMENTS = {"dobj", "attr", "acomp", "prep", "dative", "oprd", "ccomp", "xcomp", "agent"}
# a complement that refers back to the previous conjunct binds the two together
_ANAPHORS = {"it", "them", "that", "this", "these", "those", "there", "one", "ones"}
_SPEAKER = {"i", "we"}
_LEADERS = {"cc", "advmod", "punct", "intj", "mark", "preconj"}


def _skip_leaders(toks: list[Token]) -> list[Token]:
    i = 0
    while i < len(toks) and toks[i].dep_ in _LEADERS and toks[i].pos_ != "VERB":
        i += 1
    return toks[i:]


def coordinated_predicate_en(toks: list[Token]) -> Token | None:
    """The verb of a clause that is a second predicate coordinated with an earlier one
    ("…, and always add X at the end"), when it carries its own complement that does not
    refer back; None for a coordinated argument or a conjunct bound to the first."""
    body = _skip_leaders(toks)
    if not body:
        return None
    ids = {t.i for t in toks}
    verb = body[0]
    if verb.dep_ != "conj" or verb.head.i in ids or verb.head.i > verb.i:
        return None
    # the conj relation joins like with like: a conjunct of a verb is a predicate even
    # where the tagger calls it a noun, and so is a verb conjoined to a mis-tagged head
    if not (verb.pos_ == "VERB" or verb.head.pos_ in ("VERB", "AUX")):
        return None
    if any(c.dep_ in _SUBJECTS for c in verb.children):
        return None  # a clause with its own subject is handled as such
    top = _first_conjunct(verb)
    if top.dep_ != "ROOT" or top.pos_ == "AUX":
        return None  # conjoined inside a phrase ("a way to X and Y", "X-ing and Y-ing is …")
    left = _left_of(body[0], toks)
    if left is not None and any(
        a.dep_ in _PREDICATIVE and a.head.i == top.i for a in (left, *left.ancestors)
    ):
        return None  # "felt A and B": the conjunct continues a predicative complement
    shared = shared_subject_en(verb)
    if shared is not None and shared.lower_ not in _SPEAKER:
        return None  # someone else's predicates stay with their subject
    if shared is None and not _opens_sentence(top):
        return None  # no subject and not an instruction either
    comps = [c for c in verb.children if c.dep_ in _COMPLEMENTS]
    if not comps:
        return None
    for c in comps:
        words = [c] if c.dep_ != "prep" else [g for g in c.children if g.dep_ == "pobj"]
        if any(w.lower_ in _ANAPHORS and w.pos_ in ("PRON", "ADV", "DET") for w in words):
            return None
    return verb


_SUBJECTS = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_PREDICATIVE = {"acomp", "attr", "oprd"}


def _left_of(first: Token, toks: list[Token]) -> Token | None:
    """The last word before the clause (skipping punctuation and the conjunction): where the
    first conjunct ends."""
    i = (toks[0].i if toks else first.i) - 1
    while i >= first.sent.start and (first.doc[i].is_punct or first.doc[i].dep_ == "cc"):
        i -= 1
    return first.doc[i] if i >= first.sent.start else None


def _first_conjunct(verb: Token) -> Token:
    head = verb
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    return head


def _opens_sentence(head: Token) -> bool:
    """An instruction's verb stands first in its sentence (after adverbs, "please", or a
    fronted frame closed by a colon or comma)."""
    for t in head.sent:
        if t.i == head.i:
            return True
        if t.is_punct or t.pos_ in ("ADV", "INTJ") or t.lower_ == "please":
            continue
        if t.dep_ == "prep" and t.head.i == head.i:
            continue
        if any(a.dep_ == "prep" and a.head.i == head.i for a in t.ancestors):
            continue  # inside the frame
        return False
    return False


def shared_subject_en(verb: Token) -> Token | None:
    """The subject the coordinated predicate shares with the one it is conjoined to."""
    return next((c for c in _first_conjunct(verb).children if c.dep_ in _SUBJECTS), None)


def frame_en(verb: Token) -> Token | None:
    """A fronted frame that scopes over all coordinated predicates ("For my X: do A …, and
    always do B …"): a prepositional phrase left of the first predicate, closed by a
    colon or comma."""
    head = verb
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    for c in head.children:
        if c.dep_ == "prep" and c.i < head.i and c.i == c.sent.start:
            right = c.right_edge
            nxt = right.nbor(1) if right.i + 1 < len(right.doc) else None
            if nxt is not None and nxt.text in (":", ",") and nxt.i < head.i:
                return c
    return None


# --- English: negative constraints --------------------------------------------------------

_NEG_QUANT = {"no", "nothing", "none", "zero"}
_FREE = "free"


def _free_compound(toks: list[Token]) -> bool:
    """ "X-free" (spaCy splits it into X, -, free)."""
    return any(
        t.lower_ == _FREE and i >= 2 and toks[i - 1].text == "-" for i, t in enumerate(toks)
    ) or any(t.lower_.endswith("-" + _FREE) for t in toks)


def _finite_main_verb(toks: list[Token]) -> bool:
    """A finite verb heading the clause ("Nothing happened", "There are no parks"); a
    participle without auxiliary ("no X allowed") and "please" are not."""
    ids = {t.i for t in toks}
    for t in toks:
        if t.head.i in ids and t.dep_ != "ROOT":
            continue
        if t.pos_ not in ("VERB", "AUX") or t.lower_ == "please":
            continue
        aux = any(c.dep_ in ("aux", "auxpass") for c in t.children)
        if t.tag_ in ("VBN", "VBG") and not aux:
            continue
        return True
    return False


def negative_constraint_en(toks: list[Token]) -> bool:
    """A verbless clause saying what the user wants to be without: led (after discourse
    markers and adverbs) by a negative quantifier ("no X", "nothing with X"), or naming an
    "X-free" thing, with no finite main verb of its own."""
    body = _skip_leaders(toks)
    while body and (body[0].pos_ in ("ADV", "INTJ", "CCONJ", "SCONJ") or body[0].is_punct):
        if body[0].lower_ in _NEG_QUANT:
            break
        body = body[1:]
    if not body or _finite_main_verb(body):
        return False
    if any(t.lower_ in ("i", "we", "you") and t.tag_ == "PRP" for t in body):
        return False  # a statement with a person subject is worded as such
    if _free_compound(body):
        # "X-free" narrows the head noun of a clause without any verb of its own
        return not any(t.pos_ in ("VERB", "AUX") for t in body)
    first = body[0]
    if first.lower_ not in _NEG_QUANT:
        return False
    # "no X": the quantified noun; "nothing/none …": the quantifier is the head itself
    head = first.head if first.lower_ in ("no", "zero") else first
    if head.pos_ not in ("NOUN", "PROPN", "PRON") or (head.i == first.i and head.pos_ != "PRON"):
        return False  # "no more …" quantifies no thing
    asked = any(t.lower_ == "please" for t in body)
    return asked or _restricted(head)


# modifiers that narrow a noun to a kind of thing ("glass tables", "flights after 9",
# "nothing with X", "sitters who smoke"); a bare singular ("no problem", "no idea") is an
# idiom, not a constraint
_RESTRICTORS = {"compound", "amod", "prep", "relcl", "acl", "nmod", "nummod", "poss"}


def _restricted(head: Token) -> bool:
    if head.tag_ in ("NNS", "NNPS"):
        return True
    for c in head.children:
        if c.dep_ not in _RESTRICTORS:
            continue
        if c.dep_ == "prep" and all(
            g.pos_ == "PRON" for g in c.children if g.dep_ == "pobj"
        ):  # "none of them": points back, names nothing
            continue
        return True
    return False


def constraint_phrase_en(toks: list[Token]) -> str:
    """The constraint's words, without leading markers and a trailing "please"."""
    body = _skip_leaders(toks)
    while body and (body[0].pos_ in ("CCONJ", "SCONJ", "INTJ") or body[0].is_punct):
        body = body[1:]
    while body and (body[-1].is_punct or body[-1].lower_ == "please"):
        body = body[:-1]
    if not body:
        return ""
    doc = body[0].doc
    text = doc.text[body[0].idx : body[-1].idx + len(body[-1].text)]
    first = body[0]
    keep_case = first.pos_ == "PROPN" or first.ent_type_ or first.text.isupper()
    return text if keep_case else text[:1].lower() + text[1:]


# --- hypotheticals (English and Chinese/mixed) --------------------------------------------

# possibility in the main clause: what might happen, not what the user holds or does
POSSIBILITY_EN = {"might", "may", "maybe", "perhaps", "probably", "possibly"}
_COND_ZH = rx.compile(r"^(?:如果|假如|假设|倘若|若是|若|(?i:if)\b)")
_POSSIBLE_ZH = rx.compile(
    r"可能|也许|或许|说不定|没准|兴许|大概会|(?i:\b(?:might|maybe|perhaps|probably|possibly)\b)"
)
_CLAUSE_BREAK = rx.compile(r"[，,；;]")


def hypothetical_zh(text: str) -> bool:
    """ "如果以后 X 普及了，我可能会 …": a conditional whose main clause is a possibility."""
    text = text.strip()
    if not _COND_ZH.match(text):
        return False
    m = _CLAUSE_BREAK.search(text)
    if m is None:
        return False
    return bool(_POSSIBLE_ZH.search(text[m.end() :]))


def possibility_en(main: Token) -> bool:
    """The main clause of a conditional says only what might happen."""
    return any(c.lower_ in POSSIBILITY_EN and c.dep_ in ("aux", "advmod") for c in main.children)


# --- Chinese/mixed: parallel topic-comment clauses ----------------------------------------

_PREDICATE_WORDS = {"是", "在"}
_OPENING_CHARS = 64  # a clause's subject and the start of its predicate lie within this


def _noun_head(flag: str) -> bool:
    return flag == "eng" or (flag[:1] in ("n", "j") and flag not in ("nr",))


def _subject_zh(text: str) -> list[tuple[int, str, str]] | None:
    """The opening noun-phrase subject of a clause with a verbal predicate, as (offset, word,
    tag) triples (possessor and 的 allowed): "X 在 Y 上午", "我们 X 的 Y 是 Z"; None when the
    clause does not open that way."""
    words: list[tuple[int, str, str]] = []
    pos = 0
    for w, f in cut_zh(text[:_OPENING_CHARS]):  # only its opening is read
        if w.strip():
            words.append((pos, w, f))
        pos += len(w)
    i, heads = 0, 0
    while i < len(words):
        _at, w, f = words[i]
        owner = i > 0 and words[0][2] == "r"
        if _noun_head(f):
            heads += 1
        elif f == "uj" and (heads or owner) and i + 1 < len(words):  # "的" in the phrase
            pass
        elif f == "r" and i == 0 and (w not in _PERSONAL or _next_is_de(words, i)):
            pass  # a possessor ("我们 X 的 …", "我的 X") opens the phrase
        elif f[:1] in ("q", "m") and i == 1 and owner and _next_is_de(words, i):
            pass  # "我们组的 …", "我们家的 …": the owner's group
        else:
            break
        i += 1
    if not heads or i >= len(words) or words[i - 1][2] == "uj":
        return None
    j = i
    while j < len(words) and (words[j][2][:1] in ("d", "t") or words[j][1].startswith("每")):
        j += 1
    if j >= len(words):
        return None
    _at, w, f = words[j]
    return words[:i] if w in _PREDICATE_WORDS or (f[:1] == "v" and f != "vn") else None


_PERSONAL = ("我", "你", "您", "他", "她", "它")


def _next_is_de(words: list[tuple[int, str, str]], i: int) -> bool:
    return i + 1 < len(words) and words[i + 1][1] == "的"


def topic_comment_zh(text: str) -> bool:
    """A clause opening with its own noun-phrase subject and a verbal predicate."""
    return _subject_zh(text.strip()) is not None


def parallel_statements_zh(prev: str, text: str) -> bool:
    """Two comma pieces that each state something about their own subject."""
    return topic_comment_zh(text) and topic_comment_zh(prev)


def possessor_zh(text: str) -> str | None:
    """The owner named in a possessed subject ("我们 X 的 Y 是 Z" -> "我们 X"): the topic that
    statements after it ("W 在 V") are about."""
    text = text.strip()
    subj = _subject_zh(text)
    if not subj:
        return None
    marks = [k for k, (_at, w, f) in enumerate(subj) if f == "uj" and w == "的"]
    if not marks or marks[-1] == 0:
        return None
    return text[: subj[marks[-1]][0]].rstrip() or None


def bare_subject_zh(text: str) -> bool:
    """A topic-comment clause whose subject names no owner of its own ("W 在 V")."""
    subj = _subject_zh(text.strip())
    return bool(subj) and all(f not in ("uj", "r") for _at, _w, f in subj or ())


def shared_aux_en(verb: Token) -> Token | None:
    """The auxiliary a conjunct shares with the first: "I'm A-ing and B-ing", "I've A-ed and
    B-ed", "we can A and B"."""
    top = _first_conjunct(verb)
    auxes = [c for c in top.children if c.dep_ in ("aux", "auxpass") and c.i < top.i]
    if verb.tag_ == "VB":  # "we can A and B": the modal scopes over both
        return next((c for c in auxes if c.tag_ == "MD"), None)
    if verb.tag_ not in ("VBG", "VBN"):
        return None
    return next((c for c in auxes if c.tag_ != "MD"), None)


_MODAL_FORMS = {"'ll": "will", "wo": "will", "'d": "would", "ca": "can", "sha": "shall"}


def modal_text(aux: Token) -> str:
    """A shared modal as a word of its own, with the negation it carries ("can't" -> "can
    not")."""
    word = _MODAL_FORMS.get(aux.lower_, aux.lower_)
    neg = any(c.dep_ == "neg" for c in aux.head.children)
    return f"{word} not" if neg else word


__all__ = [
    "POSSIBILITY_EN",
    "bare_subject_zh",
    "constraint_phrase_en",
    "coordinated_predicate_en",
    "frame_en",
    "hypothetical_zh",
    "modal_text",
    "negative_constraint_en",
    "parallel_statements_zh",
    "possessor_zh",
    "possibility_en",
    "shared_aux_en",
    "shared_subject_en",
    "topic_comment_zh",
]
