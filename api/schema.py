"""The GraphQL schema agents code against: the Query (api/queries.py) and Mutation
(api/mutations.py) roots with the limits every request runs under, and how errors are
logged. Names in the schema are a contract: keep them stable."""

from __future__ import annotations

import logging
import traceback

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
)
from strawberry.types.execution import ExecutionContext

from api.mutations import Mutation
from api.queries import Query
from api.validation import CACHED_TEXTS, QueryLimits, Validator
from core.errors import GumemError
from core.settings import Settings

log = logging.getLogger(__name__)


class GumemSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log the kind of each error only: messages can quote user input."""
        for err in errors:
            original = err.original_error
            if original is None or isinstance(original, (GraphQLError, GumemError)):
                log.info("request error: %s", getattr(original, "code", "GRAPHQL_VALIDATION"))
            else:
                # the traceback's frames only: an exception's message may quote user input
                log.error(
                    "unexpected error: %s\n%s",
                    type(original).__name__,
                    "".join(traceback.format_tb(original.__traceback__)),
                )


def build_schema(settings: Settings) -> strawberry.Schema:
    # the rules are built once, so the validation of a query text is reused (api/validation)
    rules = [
        *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=30).validation_rules,
    ]
    validator = Validator(settings)
    return GumemSchema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: MaxTokensLimiter(max_token_count=settings.max_query_tokens),
            lambda: ParserCache(maxsize=CACHED_TEXTS),
            lambda: AddValidationRules(rules),
            lambda: QueryLimits(validator),
        ],
    )
