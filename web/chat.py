"""`/api/chat`: one turn streamed as NDJSON, one pipeline event per line, flushed as it happens.

Each line is the customer's view of the event (`pipeline.for_customer`); the full event goes to
the run log only.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from pipeline import MAX_TOKEN_CHARS, CustomerSession, Event, for_customer
from web.auth import current_account, resources
from web.http import read_json

NDJSON = "application/x-ndjson"


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str
    #: The signed token of the last turn's `needs_confirmation`, sent back with the reply to it.
    pending: str | None = Field(None, max_length=MAX_TOKEN_CHARS)


async def _lines(events: AsyncGenerator[Event, None]) -> AsyncGenerator[str, None]:
    async with aclosing(events):
        async for event in events:
            yield for_customer(event).model_dump_json() + "\n"


class TurnStream(StreamingResponse):
    """Closes the turn's event stream when the response ends for any reason.

    When the client disconnects, Starlette cancels the sending task; the stream may then be
    parked at a `yield`, where cancellation cannot reach it. Closing it here cancels the turn at
    once (the pipeline records it as cancelled) instead of whenever the generator is collected.
    """

    body_iterator: AsyncGenerator[str, None]  # type: ignore[assignment]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.body_iterator.aclose()


async def chat(request: Request) -> Response:
    account = await current_account(request)
    desk = resources(request)
    settings = desk.settings
    try:
        body = ChatRequest.model_validate(await read_json(request, max_bytes=settings.chat_max_body_bytes))
    except ValidationError:
        raise HTTPException(422, 'Send {"message": "..."}.') from None
    hit = await desk.limiter.hit(f"chat:{account.email}", limit=settings.chat_max_per_window,
                                 window_s=settings.chat_window_s)
    if not hit.allowed:
        return JSONResponse({"error": "You are sending messages too quickly. Please wait a moment."}, 429,
                            headers={"Retry-After": str(hit.retry_after_s)})
    # The token is only a claim: the pipeline verifies its signature, expiry and customer.
    events = desk.pipeline.run_turn(CustomerSession(account.email), body.message, body.pending)
    return TurnStream(_lines(events), media_type=NDJSON, headers={"X-Accel-Buffering": "no"})
