"""One A2A JSON-RPC `SendMessage` call to a guard service, failing closed.

Raw JSON-RPC over one pooled `aiohttp.ClientSession`: the request is built with the SDK's own
protocol types, the reply read through the slice of it we need (`reply.py`). Not the SDK's
`Client`: that one must fetch the agent card before its first call (an async constructor), wraps
errors we would map anyway, and its extra layers cost ~0.5 ms per call on this machine (see
`evals/benchmarks/bench_guards.py`). aiohttp rather than httpx because a guard call is on every
turn's critical path twice: a loopback request costs p50 0.5 ms through aiohttp against 1.1 ms
through httpx on this machine (a `/healthz` GET).

Every reply must carry the guard's `proof` for this request and this text (`guards/proof.py`):
a process answering on the guard's port without the shared token gets the turn to end in an
error, never in its answer.
"""

from __future__ import annotations

import itertools
import json
import uuid
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

import aiohttp
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
from a2a.utils.constants import PROTOCOL_VERSION_1_0, VERSION_HEADER
from google.protobuf.json_format import MessageToDict
from pydantic import BaseModel, ValidationError

from guards.proof import PROOF_FIELD, GuardKeys
from pipeline.clients.reply import WireReply
from pipeline.core.errors import GuardProtocolError, GuardTimeout, GuardUnavailable
from pipeline.core.settings import Settings

ModelT = TypeVar("ModelT", bound=BaseModel)

#: Shorter than uvicorn's 5 s keep-alive, so the pool never reuses a connection the guard closed.
KEEPALIVE_EXPIRY_S = 2.0
_JSON = "application/json"


class GuardChannel:
    """Sends one text to the guard at `url` and returns its data part validated as `reply_model`.

    `http` is shared or owned: a given session is left open by `aclose()`; an owned one is opened
    on the first call, inside the running event loop it belongs to. Timeouts are passed on every
    request, so an injected session's own defaults never apply.
    """

    def __init__(
        self,
        guard: str,
        url: str,
        *,
        connect_timeout_s: float,
        read_timeout_s: float,
        keys: GuardKeys,
        http: aiohttp.ClientSession | None = None,
    ) -> None:
        self.guard = guard
        self._url = url.rstrip("/") + "/"
        # Per-phase timeouts, and a total that bounds the whole call (reading the body included)
        # against a trickling reply.
        self._timeout = aiohttp.ClientTimeout(
            total=connect_timeout_s + read_timeout_s, sock_connect=connect_timeout_s, sock_read=read_timeout_s
        )
        self._keys = keys
        self._headers = {VERSION_HEADER: PROTOCOL_VERSION_1_0, "Content-Type": _JSON, "Accept": _JSON,
                         "Authorization": keys.authorization}
        self._owns_http = http is None
        self._http = http
        self._ids = itertools.count(1)

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None:
            connector = aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE_EXPIRY_S)
            self._http = aiohttp.ClientSession(connector=connector, trust_env=False)
        return self._http

    async def send(self, text: str, reply_model: type[ModelT]) -> ModelT:
        request_id = next(self._ids)
        try:
            part = Part(text=text)
        except UnicodeEncodeError as exc:  # lone surrogates: no guard could ever read this text
            raise self._protocol("the text is not valid Unicode and cannot be sent") from exc
        message_id = uuid.uuid4().hex
        message = Message(message_id=message_id, role=Role.ROLE_USER, parts=[part])
        body = {"jsonrpc": "2.0", "id": request_id, "method": "SendMessage",
                "params": MessageToDict(SendMessageRequest(message=message))}
        try:
            async with self._session().post(self._url, data=json.dumps(body).encode(),
                                            headers=self._headers, timeout=self._timeout) as response:
                status, raw = response.status, await response.read()
        except TimeoutError as exc:  # aiohttp's timeouts (connect, read, total) are TimeoutErrors
            raise GuardTimeout(f"{self.guard} at {self._url}: no answer in time ({exc!r})",
                               guard=self.guard) from exc
        except aiohttp.ClientError as exc:
            raise GuardUnavailable(f"{self.guard} at {self._url}: {exc!r}", guard=self.guard) from exc
        if not 200 <= status < 300:
            raise GuardUnavailable(f"{self.guard} at {self._url} answered HTTP {status}", guard=self.guard)
        data = self._data_part(raw, request_id)
        if not isinstance(data, dict):
            raise self._protocol("the data part is not an object")
        proof = data.pop(PROOF_FIELD, None)
        try:
            result = reply_model.model_validate(data)
        except ValidationError as exc:
            raise self._protocol(f"the data part is not a {reply_model.__name__}: {exc.errors()!r}") from exc
        # Checked on the validated result, as the guard signed it: the wire turns integers into floats.
        signed = result.model_dump(mode="json", exclude_none=True)
        if not self._keys.verify(proof, self.guard, message_id, text, signed):
            raise self._protocol("the reply's proof is missing or wrong: not the guard's answer to this request")
        return result

    def _data_part(self, raw: bytes, request_id: int) -> Any:
        try:
            reply = WireReply.model_validate_json(raw)
        except ValidationError as exc:  # not JSON, not UTF-8, or not shaped like a JSON-RPC reply
            raise self._protocol(f"the reply is not a JSON-RPC response: {exc.errors()[0]['msg']}") from exc
        if reply.id != request_id:
            raise self._protocol("the reply answers another request")
        if reply.error is not None:
            raise self._protocol(f"JSON-RPC error {reply.error.code}: {reply.error.message}")
        if reply.result is None or reply.result.message is None:
            raise self._protocol("the result is not a SendMessage response with a message")
        parts = [part.data for part in reply.result.message.parts if part.data is not None]
        if len(parts) != 1:
            raise self._protocol("the reply is not one message with one data part")
        return parts[0]

    def _protocol(self, what: str) -> GuardProtocolError:
        return GuardProtocolError(f"{self.guard} at {self._url}: {what}", guard=self.guard)

    async def aclose(self) -> None:
        if self._owns_http and self._http is not None:
            await self._http.close()
            self._http = None


class GuardClient:
    """Base of `JudgeClient`/`MaskerClient`: one channel built from settings; an async context."""

    guard: Literal["judge", "masker"]

    def __init__(self, settings: Settings, *, http: aiohttp.ClientSession | None = None) -> None:
        judge = self.guard == "judge"
        self._channel = GuardChannel(
            self.guard,
            settings.judge_url if judge else settings.masker_url,
            connect_timeout_s=settings.guard_connect_timeout_s,
            read_timeout_s=settings.judge_timeout_s if judge else settings.masker_timeout_s,
            keys=GuardKeys.derive(settings.guard_secret),
            http=http,
        )

    async def aclose(self) -> None:
        await self._channel.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
