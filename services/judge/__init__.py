"""The Security Judge as an A2A service (127.0.0.1:10002 by default)."""
