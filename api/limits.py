"""What one GraphQL request may cost, checked before and during execution.

Before: once the document is valid, an estimate of the worst case — every field counts once
per object it is asked on, a list multiplies what is under it by its size (its `limit`
argument, else its default, else a fixed bound) — refuses a query over GUMEM_MAX_QUERY_COST,
or one asking for more than GUMEM_MAX_EXPENSIVE_FIELDS of the fields that each do a whole
operation's work (recall, trace, deletions, ingest, maintenance).
During: each list field takes at most GUMEM_MAX_LIST_SIZE items (`limit`/`offset`), and a
request that has built GUMEM_MAX_RESULT_ITEMS list items gets LIMIT_EXCEEDED for the rest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeVar

from graphql import (
    ArgumentNode,
    DocumentNode,
    FieldNode,
    FragmentSpreadNode,
    GraphQLArgument,
    GraphQLError,
    GraphQLField,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    ObjectValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    TypeInfo,
    ValidationContext,
    ValueNode,
    VariableDefinitionNode,
    VariableNode,
    Visitor,
    get_named_type,
    parse,
    type_from_ast,
    visit,
)

from core.errors import InputError
from core.settings import Settings

T = TypeVar("T")

# Default sizes of the nested lists (a client asks for more, up to GUMEM_MAX_LIST_SIZE,
# with `limit`, and pages with `offset`).
NESTED = 20  # facts of a message, sources and summaries of a fact, summaries of a topic
SOURCE_FACTS = 50  # the facts behind one summary
VERSIONS = 5  # supersedes / supersededBy: a version chain rarely forks

# Fields that each do a whole operation's work, whatever they select.
EXPENSIVE = frozenset(
    {
        ("Query", "memory"),
        ("Query", "trace"),
        ("Query", "deletionImpact"),
        ("Mutation", "addMessages"),
        ("Mutation", "deleteMessage"),
        ("Mutation", "forgetUser"),
        ("Mutation", "runMaintenance"),
    }
)
RECALL_MAX = 50  # the most items one recall list can hold (memory's `limit` is at most 50)
TRACE_PARTS = 4  # a trace has at most four parts of `trace_max_paths` paths each
MAX_WALK = 64  # deeper than this the depth limit refuses the query anyway
INT32 = 2**31  # GraphQL's Int: a size beyond it is refused by the argument's own check
SHOWN = 10**15  # costs past this are shown as "more than"


def window(items: list[T], limit: int, offset: int, settings: Settings) -> list[T]:
    """items[offset : offset + limit], with both checked against the configured maximum."""
    top = settings.max_list_size
    if not 1 <= limit <= top:
        raise InputError("limit", f"must be between 1 and {top} (GUMEM_MAX_LIST_SIZE)")
    if offset < 0:
        raise InputError("offset", "must be >= 0")
    return items[offset : offset + limit]


def _fixed_sizes(settings: Settings) -> dict[tuple[str, str], int]:
    """Bounds of the object lists that take no `limit` argument."""
    trace = settings.trace_max_paths * TRACE_PARTS
    return {
        ("MemoryContext", "shortTermContext"): settings.short_term_messages,
        ("MemoryContext", "midTermContext"): RECALL_MAX,
        ("MemoryContext", "longTermUserContext"): RECALL_MAX,
        ("Trace", "nodes"): trace,
        ("Trace", "edges"): trace,
        ("AddMessagesResult", "errors"): settings.max_batch,
        ("Query", "processing"): settings.max_batch,
    }


class _Walk:
    """The worst-case cost of one operation; fragments are costed once (memoised), so a
    document of fragments that spread each other many times is still walked in linear time."""

    def __init__(
        self,
        context: ValidationContext,
        operation: OperationDefinitionNode,
        variables: Mapping[str, Any],
        settings: Settings,
    ) -> None:
        self.context = context
        self.variables = dict(variables)
        for d in operation.variable_definitions or ():
            name = d.variable.name.value
            if name not in self.variables and isinstance(d.default_value, IntValueNode):
                self.variables[name] = _literal(d.default_value)
        self.settings = settings
        self.fixed = _fixed_sizes(settings)
        self.fragments: dict[str, tuple[int, Counter[str]]] = {}
        self.active: set[str] = set()

    def cost(
        self, selection_set: SelectionSetNode, parent: Any, depth: int
    ) -> tuple[int, Counter[str]]:
        total = 0
        hits: Counter[str] = Counter()
        if depth > MAX_WALK or not isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return total, hits
        for node in selection_set.selections:
            if isinstance(node, FieldNode):
                c, h = self._field(node, parent, depth)
            elif isinstance(node, InlineFragmentNode):
                cond = node.type_condition
                inner = type_from_ast(self.context.schema, cond) if cond else parent
                c, h = self.cost(node.selection_set, inner, depth + 1)
            elif isinstance(node, FragmentSpreadNode):
                c, h = self._spread(node.name.value, depth)
            else:  # pragma: no cover - no other selection kinds exist
                continue
            total += c
            hits.update(h)
        return total, hits

    def _field(self, node: FieldNode, parent: Any, depth: int) -> tuple[int, Counter[str]]:
        name = node.name.value
        hits: Counter[str] = Counter()
        field = parent.fields.get(name)
        if name.startswith("__") or field is None:  # introspection; unknown fields are refused
            return 1, hits
        if (parent.name, name) in EXPENSIVE:
            hits[name] += 1
        if node.selection_set is None:
            return 1, hits
        size = self._size(parent.name, name, field, node) if _is_list(field) else 1
        inner, inner_hits = self.cost(node.selection_set, get_named_type(field.type), depth + 1)
        for key, n in inner_hits.items():
            hits[key] += n * size
        return 1 + size * inner, hits

    def _spread(self, name: str, depth: int) -> tuple[int, Counter[str]]:
        if name in self.fragments:
            return self.fragments[name]
        fragment = self.context.get_fragment(name)
        if fragment is None or name in self.active:  # unknown or a cycle: other rules refuse
            return 0, Counter()
        self.active.add(name)
        inner = type_from_ast(self.context.schema, fragment.type_condition)
        found = self.cost(fragment.selection_set, inner, depth + 1)
        self.active.discard(name)
        self.fragments[name] = found
        return found

    def _size(self, parent: str, name: str, field: GraphQLField, node: FieldNode) -> int:
        arg = field.args.get("limit")
        if arg is None:
            return self.fixed.get((parent, name), self.settings.max_list_size)
        value = self._argument(node, "limit", arg)
        return value if isinstance(value, int) else self.settings.max_list_size

    def _argument(self, node: FieldNode, name: str, arg: GraphQLArgument) -> object:
        for a in node.arguments or ():
            if a.name.value != name:
                continue
            if isinstance(a.value, IntValueNode):
                return _size(_literal(a.value))
            if isinstance(a.value, VariableNode):
                return _size(self.variables.get(a.value.name.value, arg.default_value))
            return None  # a wrong literal: validation refuses it
        return arg.default_value


def _literal(node: IntValueNode) -> int | None:
    return None if len(node.value) > 12 else int(node.value)


def _size(value: object) -> int | None:
    """A usable size, or None for a value the argument's own check refuses (named there)."""
    if isinstance(value, int) and not isinstance(value, bool) and -INT32 <= value < INT32:
        return max(value, 0)  # a negative size is refused when resolved; it lowers no cost
    return None


def _is_list(field: GraphQLField) -> bool:
    t = field.type
    while isinstance(t, GraphQLNonNull):
        t = t.of_type
    return isinstance(t, GraphQLList)


def worst_case(
    schema: GraphQLSchema,
    source: str,
    settings: Settings,
    variables: Mapping[str, Any] | None = None,
) -> tuple[int, Counter[str]]:
    """The estimate of the first operation in `source` and its expensive fields."""
    document = parse(source)
    context = ValidationContext(schema, document, TypeInfo(schema), lambda _err: None)
    op = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    walk = _Walk(context, op, variables or {}, settings)
    return walk.cost(op.selection_set, schema.get_root_type(op.operation), 0)


def cost_errors(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Mapping[str, Any],
    settings: Settings,
) -> list[GraphQLError]:
    """Refusals of the document's operations over the cost or expensive-field limits; the
    request's variables count (a `limit` may come from one)."""
    context = ValidationContext(schema, document, TypeInfo(schema), lambda _err: None)
    errors: list[GraphQLError] = []
    for node in document.definitions:
        if not isinstance(node, OperationDefinitionNode):
            continue
        root: GraphQLNamedType | None = schema.get_root_type(node.operation)
        cost, hits = _Walk(context, node, variables, settings).cost(node.selection_set, root, 0)
        if cost > settings.max_query_cost:
            shown = f"up to {cost:,}" if cost < SHOWN else f"more than {SHOWN:,}"
            errors.append(
                GraphQLError(
                    f"query too costly: {shown} fields in the worst case (each "
                    f"list counts at its `limit`, or its default), over the limit of "
                    f"{settings.max_query_cost:,} (GUMEM_MAX_QUERY_COST); ask for "
                    "smaller lists or nest less",
                    node,
                )
            )
        asked = sum(hits.values())
        if asked > settings.max_expensive_fields:
            which = ", ".join(f"{k} x{n}" for k, n in sorted(hits.items()))
            errors.append(
                GraphQLError(
                    f"too many expensive fields in one request: {which}; at most "
                    f"{settings.max_expensive_fields} of "
                    f"{', '.join(sorted({f for _t, f in EXPENSIVE}))} "
                    "(GUMEM_MAX_EXPENSIVE_FIELDS)",
                    node,
                )
            )
    return errors


MAX_DIGITS = 100  # graphql-core's Int check calls int(), which raises past 4,300 digits


class _LongNumbers(Visitor):
    """Finds an integer literal too long to read: validation would crash on it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: GraphQLError | None = None

    def enter_argument(self, node: ArgumentNode, *_: Any) -> None:
        self._check(node.value, f"argument `{node.name.value}`")

    def enter_variable_definition(self, node: VariableDefinitionNode, *_: Any) -> None:
        if node.default_value is not None:
            self._check(node.default_value, f"default of `${node.variable.name.value}`")

    def _check(self, value: ValueNode, where: str) -> None:
        stack = [value]
        while stack and self.found is None:
            v = stack.pop()
            if isinstance(v, IntValueNode) and len(v.value) > MAX_DIGITS:
                self.found = GraphQLError(
                    f"{where}: an integer of {len(v.value)} digits is out of range", v
                )
            elif isinstance(v, ListValueNode):
                stack.extend(v.values)
            elif isinstance(v, ObjectValueNode):
                stack.extend(f.value for f in v.fields)


def long_number(document: DocumentNode) -> GraphQLError | None:
    visitor = _LongNumbers()
    visit(document, visitor)
    return visitor.found
