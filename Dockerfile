FROM python:3.11-slim
WORKDIR /app
RUN pip install --no-cache-dir uv
COPY pyproject.toml uv.lock README.md ./
COPY gumem gumem
COPY graph graph
COPY api api
COPY extract extract
COPY cypher cypher
RUN uv sync --frozen --no-dev && uv run python -m gumem.cli models prepare
ENV PATH="/app/.venv/bin:$PATH"
EXPOSE 8000
CMD ["python", "-m", "gumem.cli", "serve"]
