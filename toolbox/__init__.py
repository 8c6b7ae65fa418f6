"""MCP Toolbox for Databases: the server process, its config, and the session-bound client."""
