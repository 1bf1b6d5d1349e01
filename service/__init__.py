"""The service: `Memory` (memory.py), the edge every door goes through, and what it drives:
the processing pipeline (pipeline, its batch preparation, consolidation, drafts, extractor,
leases, foreground pacing, the supervised worker), recall (ranking and the context it
assembles), erasure, governance, and the runtime that opens the driver and the models. It
reaches the database only through graph/."""
