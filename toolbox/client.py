"""The desk's Toolbox client: loads the toolset once; every call carries the session's signed token.

`customer_email` is an authenticated parameter (toolbox/tools.yaml): toolbox-core leaves it out of
the schema the model sees (passing it anyway is a TypeError), and the Toolbox fills it from the
token minted here for the session's email (`toolbox.scope`), never from the call's arguments.
"""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import aiohttp
from toolbox_core import ToolboxClient
from toolbox_core.protocol import ParameterSchema
from toolbox_core.tool import ToolboxTool

from pipeline.core.errors import ToolboxError, ToolboxUnavailable
from pipeline.core.settings import Settings
from toolbox.identity import AUTH_SERVICE, TokenIssuer
from toolbox.jwks import issuer_url
from toolbox.results import ToolResult, parse_result
from toolbox.scope import current_idempotency_key, observed_call, session_email

#: Parameters the desk fills in; the model never sees or chooses them.
BOUND_PARAMS = {"idempotency_key": current_idempotency_key}
#: toolbox-core warns on every call that sends a token over http://. Ours goes to the Toolbox on
#: loopback (or the compose network), the token lives `toolbox_token_ttl_s` and names one customer.
HTTP_TOKEN_WARNING = "This connection is using HTTP"
warnings.filterwarnings("ignore", message=HTTP_TOKEN_WARNING, category=UserWarning, module=r"toolbox_core\.utils")
#: Failures of the transport itself (as opposed to a tool that ran and reported an error).
TRANSPORT_FAILURES = (aiohttp.ClientError, OSError, TimeoutError, RuntimeError)


class ToolboxGateway:
    """One MCP client to the Toolbox for the process; `load()` once, then `call()` per tool call."""

    def __init__(self, url: str, *, toolset: str, timeout_s: float, issuer: TokenIssuer) -> None:
        self.url = url
        self.toolset = toolset
        self.timeout_s = timeout_s
        self._issuer = issuer
        self._session: aiohttp.ClientSession | None = None
        self._client: ToolboxClient | None = None
        self._tools: dict[str, ToolboxTool] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> ToolboxGateway:
        issuer = TokenIssuer.from_file(settings.toolbox_signing_key_file, issuer=issuer_url(settings.toolbox_jwks_port),
                                       ttl_s=settings.toolbox_token_ttl_s)
        return cls(settings.toolbox_url, toolset=settings.toolbox_toolset, timeout_s=settings.toolbox_timeout_s,
                   issuer=issuer)

    def _token(self) -> str:
        # Called by toolbox-core per call: a fresh token for whoever the current turn is bound to
        # (outside a turn, `session_email` raises and nothing is sent).
        return self._issuer.issue(session_email())

    async def load(self) -> dict[str, ToolboxTool]:
        if self._tools:
            return self._tools
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.timeout_s))
        self._client = ToolboxClient(self.url, session=self._session)
        try:
            async with asyncio.timeout(self.timeout_s):
                tools = await self._client.load_toolset(self.toolset, bound_params=BOUND_PARAMS,
                                                        auth_token_getters={AUTH_SERVICE: self._token})
        except TRANSPORT_FAILURES as exc:
            await self.aclose()
            raise ToolboxUnavailable(f"cannot load toolset {self.toolset!r} from {self.url}: "
                                     f"{type(exc).__name__}: {exc}") from exc
        self._tools = {tool._name: tool for tool in tools}
        return self._tools

    @property
    def tool_names(self) -> list[str]:
        return list(self._tools)

    def model_params(self, name: str) -> list[ParameterSchema]:
        """The parameters the model may fill: everything except the bound ones."""
        return [p for p in self._tools[name]._params if p.name not in BOUND_PARAMS]

    def description(self, name: str) -> str:
        return self._tools[name]._description

    async def call(self, name: str, **args: Any) -> ToolResult:
        """Run one tool for the bound customer; raises ToolboxError subclasses, never returns errors."""
        tools = await self.load()
        if name not in tools:
            raise ToolboxError(f"unknown tool {name!r}")
        with observed_call(name, args) as call:
            try:
                async with asyncio.timeout(self.timeout_s):
                    text = await tools[name](**args)
            # A TypeError (a bound parameter or a wrong argument passed) is a programming error: it
            # is caught by none of these and propagates unchanged (observed as a failed call).
            except TRANSPORT_FAILURES as exc:
                raise ToolboxUnavailable(f"{name} failed: {type(exc).__name__}: {exc}") from exc
            result = parse_result(name, text)
            call.row_count = result.row_count
        return result

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._client = self._session = None
        self._tools = {}
