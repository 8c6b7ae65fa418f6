"""The slice of an A2A 1.0 JSON-RPC `SendMessage` reply that a guard client reads.

Validated by pydantic straight from the bytes, not through the SDK's protobuf types: `ParseDict`
plus `MessageToDict` cost ~0.13 ms per reply on this machine, on a call every turn makes twice.
Fields we do not read are ignored, as the SDK's own parser does; the guard's data part is then
validated by the caller's model (`Verdict`, `MaskResult`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class WirePart(BaseModel):
    #: A Part carries one of text, data, raw or url; only a data part answers a guard call.
    data: Any = None


class WireMessage(BaseModel):
    parts: list[WirePart]


class WireResult(BaseModel):
    #: Absent when the agent answered with a task, which a guard never should.
    message: WireMessage | None = None


class WireError(BaseModel):
    code: int | None = None
    message: str | None = None


class WireReply(BaseModel):
    jsonrpc: Literal["2.0"]
    id: int | str | None = None
    result: WireResult | None = None
    error: WireError | None = None
