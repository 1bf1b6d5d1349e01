"""Extraction functions the tests inject into the pool. Module level: a child process
imports them by name. Markers in a message's content choose the behaviour."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from extract.types import Extraction, FactDraft
from service.extractor import Task, run_task
from service.models import Models

SLOW = "zq-slow-marker"  # sleeps far past any test budget
POISON = "zq-poison-marker"  # raises, with the content in the exception's message
HOURS = "zq-hours-marker"  # a regex that backtracks for hours (no thread can stop it)
BAD_FACT = "zq-badfact-marker"  # extracts a fact no store accepts (a lone surrogate)


def hooked(task: Task, models: Models) -> Extraction:
    text = " ".join(m.content for m in task.messages)
    if SLOW in text:
        time.sleep(120)
    if POISON in text:
        raise ValueError(f"cannot read {text!r}")
    if HOURS in text:
        re.fullmatch(r"(x+x+)+y", "x" * 40)
    if BAD_FACT in text:
        m = task.messages[0]
        now = datetime.now(UTC)
        bad = FactDraft("broken \ud800 fact", "fact", (m.message_id,), now, now, "en", key="bad")
        return Extraction((bad,))
    return run_task(task, models)
