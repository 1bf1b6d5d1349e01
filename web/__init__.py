"""The HTTP edge both HTTP doors share (GraphQL in api/, MCP's streamable HTTP in doors/):
bearer-key auth (auth.py), and the body limit, request id and access line (edge.py)."""
