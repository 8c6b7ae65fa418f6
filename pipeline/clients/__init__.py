"""Pipeline-side clients of the guard services (A2A JSON-RPC, fail closed)."""

from pipeline.clients.channel import GuardChannel, GuardClient
from pipeline.clients.guards import JudgeClient, MaskerClient

__all__ = ["GuardChannel", "GuardClient", "JudgeClient", "MaskerClient"]
