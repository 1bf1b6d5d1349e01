"""The third-person wording of a fact from its clause (facts.py), English and Chinese."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from extract.chat import clause_grammar as cg
from extract.chat import zh_grammar
from extract.chat.lexicon import (
    _ALWAYS,
    _BUDGET_LEAD_ZH,
    _DONT,
    _ES_ENDING,
    _I_ZH,
    _NEG_LEAD,
    _PLEASE,
    _PRED_START_ZH,
    _PREFERABLY,
    _PREFERABLY_LEAD,
    _SPACES,
    _WE_ZH,
    _Y_ENDING,
    USER_EN,
    USER_ZH,
)
from extract.chat.subject import Subject
from extract.chat.tokens import (
    _content_tokens,
    _first_person,
    _has_subject,
    _implied_subject,
    _is_imperative,
    _lets,
    _money,
    _tokens,
)
from extract.nlp import doc_text
from extract.types import Kind
from text import rx

# --- wording ------------------------------------------------------------------------------


def _third_person(verb: str) -> str:
    low = verb.lower()
    irregular = {
        "am": "is",
        "'m": "is",
        "are": "is",
        "have": "has",
        "'ve": "has",
        "do": "does",
        "go": "goes",
        "'re": "is",
    }
    if low in irregular:
        out = irregular[low]
    elif _ES_ENDING.search(low):
        out = low + "es"
    elif _Y_ENDING.search(low):
        out = low[:-1] + "ies"
    else:
        out = low + "s"
    return out.capitalize() if verb[:1].isupper() else out


def _agreement_targets(toks: list[Token]) -> set[int]:
    """Indices of finite verbs whose subject is "I" (they become third person singular)."""
    targets: set[int] = set()
    for t in toks:
        if not (t.lower_ == "i" and t.dep_ in ("nsubj", "nsubjpass")):
            continue
        head = t.head
        for verb in (
            head,
            *[
                c
                for c in head.conjuncts
                if not any(k.dep_ in ("nsubj", "nsubjpass") for k in c.children)
            ],
        ):
            auxes = [c for c in verb.children if c.dep_ in ("aux", "auxpass") and c.i < verb.i]
            finite = auxes[0] if auxes else verb
            if finite.tag_ == "VBP" or finite.lower_ in ("am", "'m"):
                targets.add(finite.i)
            elif verb is not head and verb.lower_ == verb.lemma_ and head.i in targets:
                targets.add(verb.i)  # "I stay home and read" -> "stays ... reads"
    return targets


def _rewrite_en(doc: Doc, start: int, end: int, subject: str) -> str:
    toks = _tokens(doc, start, end)
    poss = f"{subject}'s"
    targets = _agreement_targets(toks)
    out: list[str] = []
    for i, t in enumerate(toks):
        low, nxt = t.lower_, toks[i + 1] if i + 1 < len(toks) else None
        word = t.text
        if (low == "i" and t.tag_ == "PRP") or (low in ("me",) and t.tag_ == "PRP"):
            word = subject
        elif low in ("we", "us") and t.tag_ == "PRP":
            word = f"{subject} and others"
        elif low in ("my", "mine", "our", "ours") and t.tag_ in ("PRP$", "PRP"):
            word = poss
        elif low in ("myself", "ourselves"):
            word = "themselves"
        elif t.i in targets:
            word = _third_person(t.text)
        elif low == "'d" and t.tag_ == "MD":
            word = "had" if nxt is not None and nxt.tag_ == "VBN" else "would"
        elif low == "'ll" and t.tag_ == "MD":
            word = "will"
        elif low == "'m":
            word = "is"
        elif low == "'re" and i > 0 and toks[i - 1].lower_ == "we":
            word = "are"
        ws = t.whitespace_
        if word != t.text and t.text.startswith("'"):
            out.append(" ")  # "I'm" -> "the user is"
        if (
            nxt is not None
            and not ws
            and nxt.text.startswith("'")
            and nxt.lower_ in ("'m", "'d", "'ll", "'ve")
            and word != t.text
        ):
            ws = ""
        out.append(word + ws)
    text = _SPACES.sub(" ", "".join(out)).strip()
    return text


def _imperative_en(doc: Doc, start: int, end: int, subject: str) -> str:
    text = doc_text(doc)[start:end].strip()
    text = _PLEASE.sub("", text)
    m = _DONT.match(text)
    if m:
        how = "never to" if text.lower().startswith("never") else "not to"
        return f"{subject} asks {how} {m.group(1)}"
    m = _ALWAYS.match(text)
    if m:
        return f"{subject} asks to always {m.group(1)}"
    return f"{subject} asks to {text[:1].lower()}{text[1:]}"


# the slots worded by one template each: {subject} and {value} (a budget's money text)
_TEMPLATES_EN = {
    "budget": "{subject}'s budget is {value}",
    "size": "{subject} wears size {value}",
    "home_city": "{subject} lives in {value}",
}
_TEMPLATES_ZH = {
    "budget": "{subject}预算在 {value}",
    "size": "{subject}穿 {value} 码",
    "home_city": "{subject}住在{value}",
}


def _templated(
    templates: dict[str, str], slot: str, value: str, money_text: str | None, subject: str
) -> str | None:
    base = slot.split(":", 1)[0]
    template = templates.get(base)
    if template is None:
        return None
    shown = (money_text or value) if base == "budget" else value
    return template.format(subject=subject, value=shown)


def _template_en(slot: str, value: str, money_text: str | None, subject: str) -> str:
    fixed = _templated(_TEMPLATES_EN, slot, value, money_text, subject)
    if fixed is not None:
        return fixed
    base = slot.split(":", 1)[0]
    if base == "default_city":
        team = (
            slot.split(":", 1)[1].replace("_team", "").replace("_", " ").title()
            if ":" in slot
            else ""
        )
        return (
            f"The {team} team defaults to {value}"
            if team
            else f"{subject}'s default city is {value}"
        )
    qual = slot.partition(":")[2]
    name = f"{qual} {base}" if qual and base != "allergy" else base
    return f"{subject}'s {name.replace('_', ' ')} is {value}"


def _coordinated_en(doc: Doc, verb: Token, end: int, subject: str) -> str:
    """A coordinated predicate worded with the subject (and fronted frame) it shares."""
    lead = [t for t in verb.lefts if t.dep_ == "advmod"]
    start = lead[0].left_edge.idx if lead else verb.idx
    shared = cg.shared_subject_en(verb)
    tail = verb.idx + len(verb.text)
    rest = _rewrite_en(doc, tail, end, subject) if end > tail else ""
    adverbs = doc_text(doc)[start : verb.idx].strip()
    if shared is None:
        body = " ".join(w for w in (adverbs, verb.text.lower(), rest) if w)
        out = f"{subject} asks to {body}"
    else:
        plural = shared.lower_ == "we"
        agree = verb.tag_ in ("VBP", "VB") or (verb.pos_ != "VERB" and verb.lower_ == verb.lemma_)
        word = _third_person(verb.text) if agree and not plural else verb.text
        who = f"{subject} and others" if plural else subject
        aux = cg.shared_aux_en(verb)  # "I'm A-ing and B-ing" -> "… is B-ing"
        if aux is not None and aux.tag_ == "MD":
            who, word = f"{who} {cg.modal_text(aux)}", verb.text  # "… should at least write"
        elif aux is not None:
            low = aux.lower_.lstrip("'")
            be = low in ("m", "am", "re", "are", "is", "s", "was", "were")
            word = f"{('are' if plural else 'is') if be else ('have' if plural else 'has')} {word}"
        out = " ".join(w for w in (who, adverbs, word, rest) if w)
    frame = cg.frame_en(verb)
    if frame is not None:
        span = (frame.left_edge.idx, frame.right_edge.idx + len(frame.right_edge.text))
        out = f"{_rewrite_en(doc, span[0], span[1], subject)}, {out[:1].lower()}{out[1:]}"
    return out


def _wording_en(
    doc: Doc, start: int, end: int, subject: str, slot: str | None, value: str | None
) -> str:
    toks = _tokens(doc, start, end)
    text = doc_text(doc)[start:end].strip()
    implied = _implied_subject(toks)
    lets = _content_tokens(toks)
    if _lets(lets):
        rest = doc_text(doc)[lets[1].idx + len(lets[1].text) : end].strip()
        out = f"{subject} wants to {rest}"
    elif (coord := cg.coordinated_predicate_en(toks)) is not None:
        out = _coordinated_en(doc, coord, end, subject)
    elif implied is not None:
        rest = _rewrite_en(doc, start, end, subject)
        out = " ".join(w for w in (subject, implied, rest[:1].lower() + rest[1:]) if w)
    elif any(_first_person(t) for t in toks):
        out = _rewrite_en(doc, start, end, subject)
    elif _is_imperative(toks):
        out = _imperative_en(doc, start, end, subject)
    elif cg.negative_constraint_en(toks):
        out = f"{subject} wants {cg.constraint_phrase_en(toks)}"  # "no glass tables"
    elif _has_subject(_content_tokens(toks)):
        out = text  # a statement about something else the user set ("The design team ...")
    elif slot and value:
        money = _money(doc, start, end)
        out = _template_en(slot, value, money[1] if money else None, subject)
    elif _PREFERABLY.match(text):
        rest = _PREFERABLY_LEAD.sub("", text)
        out = f"{subject} prefers {rest}"
    elif _NEG_LEAD.match(text):
        out = f"{subject} wants {text}"
    else:
        out = f"{subject}: {text}"
    return out[:1].upper() + out[1:]


def _wording_zh(text: str, subject: str, kind: Kind, slot: str | None, topic: bool = False) -> str:
    out, n = _WE_ZH.subn(f"{subject}等人", text)  # a str replacement is literal (rx)
    out, k = _I_ZH.subn(subject, out)
    if n + k:
        return out
    if topic and not _PRED_START_ZH.match(out):
        return f"对{subject}来说，{out}"
    if kind == "constraint" and slot is None and not zh_grammar.wish_start(out):
        if out.startswith(("最好别", "最好不")):
            out = out[2:]
        return f"{subject}希望{out}"
    if _PRED_START_ZH.match(out):
        out = _BUDGET_LEAD_ZH.sub(lambda m: f"预算在 {m.group(1)}", out, count=1)
        return f"{subject}{out}"
    return out


def _template_zh(slot: str, value: str, money_text: str | None, subject: str) -> str:
    fixed = _templated(_TEMPLATES_ZH, slot, value, money_text, subject)
    return fixed if fixed is not None else f"{subject}的{slot.split(':', 1)[0]}为 {value}"


# --- a fact about an entity of the user's world ---------------------------------------------

_MINE_LEAD_ZH = rx.compile(r"^(?:我们家|咱们家|我们|咱们|我家|咱家|我|咱)的?")
_CLAUSE_LEAD_EN = rx.compile(r"^(?:and|but|yet|so|also|then)\b[\s,]*", rx.IGNORECASE)


def _wording_about_zh(text: str, about: Subject, via: str) -> str:
    """ "我<P>今年 N 岁" -> "用户的<P>今年 N 岁"; a clause without a subject of its own takes
    the entity's name ("周末也 V" -> "用户的<P>周末也 V"); a anaphor stands for it
    ("她的 A…" -> "用户的<P>的 A…")."""
    who = about.display("zh")
    if via == "own":
        if about.mine and about.relation is None:
            text = _MINE_LEAD_ZH.sub(f"{USER_ZH}的", text, count=1)
        body = text
    elif via == "carried":
        body = who + text
    else:
        body = who + ("的" if via.endswith("的") or via == "其" else "") + text[len(via) :]
    out, n = _WE_ZH.subn(f"{USER_ZH}等人", body)
    return _I_ZH.sub(USER_ZH, out) if n == 0 else out


# a contraction after a pronoun the subject's name replaces, by the verb it stands for
_UNCONTRACTED = {
    ("'s", "be"): "is",
    ("'s", "have"): "has",
    ("'re", "be"): "are",
    ("'ve", "have"): "have",
    ("'ll", "will"): "will",
    ("'d", "would"): "would",
    ("'d", "have"): "had",
}


def _wording_about_en(doc: Doc, start: int, end: int, about: Subject, via: str) -> str:
    """ "My <P> is X" -> "The user's <P> is X"; "and V-s Y" -> "The user's <P> V-s Y";
    "he is X" -> "The user's <P> is X"."""
    who = about.display("en")
    if via == "own":
        out = _rewrite_en(doc, start, end, USER_EN)
    elif via == "carried":
        out = f"{who} {_CLAUSE_LEAD_EN.sub('', _rewrite_en(doc, start, end, USER_EN))}"
    else:
        pron = next(
            (t for t in _tokens(doc, start, end) if t.text == via and t.tag_ in ("PRP", "PRP$")),
            None,
        )
        if pron is None:
            out = _rewrite_en(doc, start, end, USER_EN)
        else:
            name = f"{who}'s" if pron.tag_ == "PRP$" else who
            before = _rewrite_en(doc, start, pron.idx, USER_EN) if pron.idx > start else ""
            after = _rewrite_en(doc, pron.idx + len(pron.text), end, USER_EN)
            if after.startswith("'") and pron.i + 1 < len(doc):  # "she's 71": "<P> is 71"
                head = after.split(" ", 1)[0]
                full = _UNCONTRACTED.get((head.lower(), doc[pron.i + 1].lemma_))
                after = full + after[len(head) :] if full else after
            glue = "" if after.startswith("'") else " "
            out = " ".join(w for w in (before, name) if w) + (glue + after if after else "")
    out = out.strip().rstrip(".")
    return out[:1].upper() + out[1:]
