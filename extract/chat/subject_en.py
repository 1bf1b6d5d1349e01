"""The entity an English clause is about when it is not the user (subject.py), read from
spaCy's dependency parse: "my <P>", a person by name, "N is my <P>", "the X's A is Z",
"the A of X is Z"; and the clauses bound to the one before (an anaphor, a shared subject)."""

from __future__ import annotations

from spacy.tokens import Token

from extract.chat.subject import _HAN, Subject, _aliases, _people_kind, thing_kind
from packs import current as current_pack

_FIRST_POSS_EN = {"my", "our"}
_THIRD_EN = {"he", "she", "they", "it"}
_THIRD_POSS_EN = {"his", "her", "their", "its"}
_SUBJ_DEPS = ("nsubj", "nsubjpass")
_KEEP_MODS = ("compound", "amod")
_EMBEDDED = {"relcl", "advcl", "acl", "ccomp", "xcomp", "csubj", "pcomp"}


def _main_subject_en(toks: list[Token]) -> tuple[Token, Token] | None:
    """The clause's main subject and its verb: the first subject not inside an embedded
    clause (a subject under an auxiliary the parser took for the verb counts)."""
    ids = {t.i for t in toks}
    for subj in (t for t in toks if t.dep_ in _SUBJ_DEPS):
        verb, up = subj.head, subj.head
        embedded = False
        while up.head.i in ids and up.dep_ != "ROOT" and up.head.i != up.i:
            embedded = embedded or up.dep_ in _EMBEDDED
            up = up.head
        if not embedded:
            return verb, subj
    return None


def _np_text_en(head: Token) -> str:
    """A noun with its compounds and adjectives."""
    mods = [c for c in head.children if c.dep_ in _KEEP_MODS and c.i < head.i]
    return " ".join([*(m.text for m in mods), head.text])


def _owned_en(noun: Token) -> bool:
    return any(c.dep_ == "poss" and c.lower_ in _FIRST_POSS_EN for c in noun.children)


def _person_en(noun: Token, attr: str | None = None) -> Subject | None:
    """A person or animal the user names as theirs ("my (A) <P>", "my <P> N"), or a person
    by name. A people noun with no determiner ("Mom says …") is the user's own."""
    mine = _owned_en(noun) or (
        noun.pos_ in ("NOUN", "PROPN") and not any(c.dep_ in ("det", "poss") for c in noun.children)
    )
    kind = _people_kind(noun.lemma_, "en") or _people_kind(noun.text, "en")
    if kind is not None and mine:
        name = next((c.text for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN"), "")
        np = _np_text_en(noun)
        full = f"{np} {name}".strip()
        parts = [noun.text if noun.text != full else "", name]
        return Subject(full, kind, _aliases(parts, noun.text, "en"), mine=True, attr=attr)
    if noun.pos_ == "PROPN" and noun.ent_type_ == "PERSON" and not _HAN.search(noun.doc.text):
        return Subject(_np_text_en(noun), "person", (), attr=attr)
    return None


def _related(rel: Token, name: str, attr: str | None = None) -> Subject | None:
    """The user's <P> a relation noun names, with the person's name as its alias; None when
    ``rel`` is not a people noun of the pack."""
    kind = _people_kind(rel.lemma_, "en")
    if kind is None:
        return None
    rel_np = _np_text_en(rel)
    aliases = _aliases([name], rel.text, "en")
    return Subject(rel_np, kind, aliases, mine=True, attr=attr, relation=rel_np)


def _named_relation_en(verb: Token, subj: Token) -> Subject | None:
    """ "N is my <P>": the relation, with the name as its alias."""
    if verb.lemma_ != "be" or subj.pos_ != "PROPN":
        return None
    rel = next((c for c in verb.children if c.dep_ == "attr"), None)
    if rel is None or not _owned_en(rel):
        return None
    return _related(rel, " ".join(t.text for t in subj.subtree if t.pos_ == "PROPN"))


def _appositive_en(subj: Token) -> Subject | None:
    """ "N, my <P>, …": the relation, with the name as its alias."""
    if subj.pos_ != "PROPN":
        return None
    rel = next((c for c in subj.children if c.dep_ == "appos" and _owned_en(c)), None)
    if rel is None:
        return None
    names = (t.text for t in subj.subtree if t.pos_ == "PROPN" and t.i < rel.i)
    return _related(rel, " ".join(names))


def _relation_named_en(verb: Token, subj: Token) -> Subject | None:
    """ "my <P> is N": the relation, with the name as its alias and the name as what the
    clause gives it."""
    if verb.lemma_ != "be" or not _owned_en(subj):
        return None
    value = next((c for c in verb.children if c.dep_ == "attr"), None)
    if value is None or value.pos_ != "PROPN" or value.ent_type_ in ("NORP", "GPE", "LANGUAGE"):
        return None
    name = " ".join(t.text for t in value.subtree if t.pos_ == "PROPN")
    return _related(subj, name, current_pack().words("name", "en") or None)


def _possessor_en(subj: Token, verb: Token) -> Subject | None:
    """ "the X's A is Z", "my <P>'s A is Z", "the A of X is Z"."""
    if verb.lemma_ != "be" or subj.pos_ != "NOUN":
        return None
    mods = [c.lemma_.lower() for c in subj.children if c.dep_ == "compound" and c.i < subj.i]
    attr = " ".join([*mods, subj.lemma_.lower()])
    owner = next(
        (c for c in subj.children if c.dep_ == "poss" and c.pos_ in ("NOUN", "PROPN")), None
    )
    if owner is None:
        of = next((c for c in subj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        owner = next((g for g in of.children if g.dep_ == "pobj"), None) if of else None
        if owner is None or owner.pos_ not in ("NOUN", "PROPN"):
            return None
        plain = owner.pos_ != "PROPN" and thing_kind(owner.lemma_, "en") == "thing"
        if plain and _people_kind(owner.lemma_, "en") is None:
            return None  # "the A of X" with X no name, no person, no kind of thing
    person = _person_en(owner, attr)
    if person is not None:
        return person
    if _owned_en(owner):
        return None  # the user's own thing ("my X's A")
    name = _np_text_en(owner)
    kind = "person" if owner.ent_type_ == "PERSON" else thing_kind(owner.lemma_, "en")
    return Subject(name, kind, attr=attr)


def subject_en(toks: list[Token]) -> Subject | None:
    """The entity an English clause is about when it is not the user (None otherwise)."""
    found = _main_subject_en(toks)
    if found is None:
        return None
    verb, subj = found
    if any(c.dep_ == "conj" for c in subj.children):
        return None  # "my <P> and I", "my <P> and <P>": a joined subject
    named = _named_relation_en(verb, subj) or _appositive_en(subj) or _relation_named_en(verb, subj)
    if named is not None:
        return named
    if subj.pos_ in ("NOUN", "PROPN"):
        attr = (current_pack().words("age", "en") or None) if _age_en(verb) else None
        return _person_en(subj, attr) or _possessor_en(subj, verb)
    return None


def _age_en(verb: Token) -> bool:
    """ "X is 58 (years old)", "X turned 59"."""
    if verb.lemma_ not in ("be", "turn"):
        return False
    return any(
        c.like_num or any(g.like_num for g in c.children) for c in verb.children if c.i > verb.i
    ) and any(t.lower_ in ("old", "years", "year") or t.like_num for t in verb.rights)


def anaphor_led_en(toks: list[Token]) -> Token | None:
    """The third-person anaphor subject (or possessive) a clause opens with."""
    found = _main_subject_en(toks)
    if found is None:
        return None
    _verb, subj = found
    if subj.lower_ in _THIRD_EN and subj.tag_ == "PRP":
        return subj
    poss = next((c for c in subj.children if c.dep_ == "poss"), None)
    if poss is not None and poss.lower_ in _THIRD_POSS_EN:
        return poss
    return None


def coordinated_en(toks: list[Token]) -> bool:
    """A predicate that shares the subject of the clause before it, which is not the
    speaker ("…, and V-s X" after "My <P> V-s Y")."""
    body = [t for t in toks if not (t.is_punct or t.dep_ in ("cc", "advmod", "intj"))]
    if not body:
        return False
    verb = body[0]
    ids = {t.i for t in toks}
    if verb.dep_ != "conj" or verb.head.i in ids or verb.pos_ not in ("VERB", "AUX"):
        return False
    if any(c.dep_ in _SUBJ_DEPS for c in verb.children):
        return False
    head = verb
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    shared = next((c for c in head.children if c.dep_ in _SUBJ_DEPS), None)
    return shared is not None and shared.lower_ not in ("i", "we")


__all__ = ["anaphor_led_en", "coordinated_en", "subject_en"]
