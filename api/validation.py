"""Checks run on every GraphQL request before it executes, with the part that depends only
on the query text done once per distinct text.

Agents send the same few query texts again and again with new variables; validating one
against the schema's rules costs milliseconds of CPU each time. The rules (graphql-core's,
strawberry's, the depth and alias limits, the long-integer check) depend on the text alone,
so their result is kept in a bounded LRU keyed by the text. The cost estimate depends on
the variables too (a `limit` may come from one) and runs on every request.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Mapping
from threading import Lock

from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from api.limits import cost_errors, long_number
from core.settings import Settings

CACHED_TEXTS = 512  # distinct query texts whose validation is kept; agents send a handful


Rules = tuple[type[ASTValidationRule], ...]


class Validator:
    """Validation for one schema, shared by every request it serves."""

    def __init__(self, settings: Settings, maxsize: int = CACHED_TEXTS) -> None:
        self.settings = settings
        self.maxsize = maxsize
        self.kept: OrderedDict[tuple[str, Rules], tuple[GraphQLError, ...]] = OrderedDict()
        self.lock = Lock()

    def errors(
        self,
        schema: GraphQLSchema,
        query: str | None,
        document: DocumentNode,
        rules: Rules,
        variables: Mapping[str, object],
    ) -> list[GraphQLError]:
        found = self._cached(schema, query, document, rules)
        if found:
            return list(found)
        return cost_errors(schema, document, variables, self.settings)

    def _cached(
        self, schema: GraphQLSchema, query: str | None, document: DocumentNode, rules: Rules
    ) -> tuple[GraphQLError, ...]:
        if query is None:  # a document without its text: nothing to key on
            return _validate(schema, document, rules)
        key = (query, rules)  # `document` is the parse of `query`: equal keys validate alike
        with self.lock:
            if (hit := self.kept.get(key)) is not None:
                self.kept.move_to_end(key)
                return hit
        found = _validate(schema, document, rules)
        with self.lock:
            self.kept[key] = found
            while len(self.kept) > self.maxsize:
                self.kept.popitem(last=False)
        return found


def _validate(
    schema: GraphQLSchema, document: DocumentNode, rules: Rules
) -> tuple[GraphQLError, ...]:
    if err := long_number(document):  # validation itself would crash on it
        return (err,)
    return tuple(validate_document(schema, document, rules))


class QueryLimits(SchemaExtension):
    """Validates the request (cached by query text), then checks its cost."""

    def __init__(self, validator: Validator) -> None:
        self.validator = validator

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        if ec.pre_execution_errors is None and ec.graphql_document is not None:
            ec.pre_execution_errors = self.validator.errors(
                ec.schema._schema,
                ec.query,
                ec.graphql_document,
                ec.validation_rules,
                ec.variables or {},
            )
        yield
