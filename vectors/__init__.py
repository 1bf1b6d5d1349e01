"""Vectors: text embeddings through fastembed on a prepared ONNX model (``embedding``),
the ONNX Runtime session it runs on (``ort_session``), and concurrent embed calls
coalesced into one batch (``coalesce``). May import core and extract.types only: the
Docker image prepares the model with ``embedding`` and ``ort_session`` alone."""
