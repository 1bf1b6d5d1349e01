"""An answer worded in English (answers.py): a wh-question's frame filled with the answer's
value, a yes/no question's proposition as the user's statement (with the adverbs the answer
adds), the assistant's offer as what the user wants done."""

from __future__ import annotations

from spacy.tokens import Doc, Token

from extract.chat.answer_words import (
    _ASKS_USER,
    _CONTRACTED,
    _FREQUENCY,
    _HELP_EN,
    _PLAIN_EN,
    _SELF_EN,
    _STATE_EN,
    _WH_TAGS,
    _YOU_EN,
    ASSISTANT_EN,
    USER_EN,
)


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
