"""ONNX Runtime sessions whose threads block between calls instead of spinning.

By default ONNX Runtime's thread pool spins for a while after each call, waiting for the
next. A worker calls the model between database round trips, in small batches, on a
machine it shares with Neo4j and other workers: the spinning burns the CPU they need.
fastembed exposes no session option for it, so the session it built is built again from
the same model file, providers and options, with spinning off.
"""

from __future__ import annotations

import logging
from typing import Any

import onnxruntime as ort

log = logging.getLogger(__name__)

SPIN_KEYS = ("session.intra_op.allow_spinning", "session.inter_op.allow_spinning")


def without_spinning(model: Any) -> bool:
    """Rebuild the ONNX session inside a fastembed ``TextEmbedding`` with spinning off;
    whether it did (a layout this fastembed does not have leaves the model as it was)."""
    session = _session(model)
    path = getattr(session, "_model_path", None)
    if session is None or not isinstance(path, str | bytes):
        log.warning("embedding model: session not found, left spinning")
        return False
    options = session.get_session_options()
    for key in SPIN_KEYS:
        options.add_session_config_entry(key, "0")
    model.model.model = ort.InferenceSession(
        path, sess_options=options, providers=session.get_providers()
    )
    return True


def spinning(model: Any) -> bool | None:
    """Whether the session inside a fastembed model may spin (None: no session found)."""
    session = _session(model)
    if session is None:
        return None
    try:
        entry = session.get_session_options().get_session_config_entry(SPIN_KEYS[0])
    except RuntimeError:  # not set: the runtime's default, which spins
        return True
    return bool(entry != "0")


def _session(model: Any) -> Any:
    """The ONNX session fastembed keeps at ``TextEmbedding.model.model`` (None: not there)."""
    session = getattr(getattr(model, "model", None), "model", None)
    return session if isinstance(session, ort.InferenceSession) else None
