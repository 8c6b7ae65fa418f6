"""Reading a JSON request body within a byte limit, with the status code each failure deserves."""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request


async def read_json(request: Request, *, max_bytes: int) -> Any:
    """413 past `max_bytes` (declared or streamed), 415 unless JSON is declared, 400 if it does not parse."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > max_bytes):
        raise HTTPException(413, "That message is too large.")
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise HTTPException(415, "Send the request as application/json.")
    body = bytearray()
    # A chunked upload has no Content-Length: count while reading, never buffer past the limit.
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise HTTPException(413, "That message is too large.")
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise HTTPException(400, "The request body is not valid JSON.") from None
