FROM python:3.11-slim
# The API runs as an unprivileged user; the code, the environment and the prepared model
# belong to root and are only readable by it.
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin gumem
WORKDIR /app
RUN pip install --no-cache-dir uv
COPY pyproject.toml uv.lock README.md ./
COPY core core
COPY gumem gumem
COPY graph graph
COPY api api
COPY extract extract
COPY cypher cypher
COPY tools tools
ARG GUMEM_EMBEDDING_MODEL=gumem/multilingual-e5-small-q4
ENV GUMEM_MODEL_CACHE=/app/models GUMEM_EMBEDDING_MODEL=${GUMEM_EMBEDDING_MODEL}
RUN uv sync --frozen --no-dev && uv run python -m tools models prepare
ENV PATH="/app/.venv/bin:$PATH"
USER gumem
EXPOSE 8000
CMD ["python", "-m", "gumem.cli", "serve"]
