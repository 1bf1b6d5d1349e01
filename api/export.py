"""Print the GraphQL schema (SDL); `make schema` writes it to schema.graphql."""

from __future__ import annotations

from api.schema import build_schema
from core.settings import Settings

if __name__ == "__main__":
    print(build_schema(Settings()).as_str())
