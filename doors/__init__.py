"""The doors a process is started through: the `gumem` command (cli.py, its subcommands in
commands.py) and the MCP server (mcp_server.py, its tools in mcp_tools.py and the JSON of
its resources in mcp_views.py). They sit on top: they wire api/ and the service together."""
