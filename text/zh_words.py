"""Chinese words: jieba's segmentation with its part-of-speech tags, the one cut the stages
of extract/ share (slots, clause grammar, subjects, corrections, answers)."""

from __future__ import annotations

import jieba.posseg as pseg


def cut_zh(text: str) -> list[tuple[str, str]]:
    """(word, jieba part-of-speech tag) pairs."""
    return [(w.word, w.flag) for w in pseg.cut(text)]


__all__ = ["cut_zh"]
