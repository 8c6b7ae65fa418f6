"""The one Starlette app builder behind both guard services."""

from __future__ import annotations

from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, DEFAULT_RPC_URL
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from guards.proof import GuardKeys
from services.common.card import GuardSpec, build_agent_card
from services.common.handler import Decide, GuardRequestHandler
from services.common.middleware import BearerAuth, RequestBody

#: The pre-1.0 well-known path, still asked for by older A2A clients.
LEGACY_CARD_PATH = "/.well-known/agent.json"
HEALTH_PATH = "/healthz"
PUBLIC_PATHS = (AGENT_CARD_WELL_KNOWN_PATH, LEGACY_CARD_PATH, HEALTH_PATH)


async def _healthz(_: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def build_guard_app(
    spec: GuardSpec, decide: Decide, *, url: str, token: SecretStr, max_body_bytes: int,
    max_text_chars: int | None = None, max_text_bytes: int | None = None,
) -> Starlette:
    """Card at both well-known paths, JSON-RPC (1.0 and 0.3 method names) at `/`, `/healthz`.

    `url` is the address published in the card. The token's bearer guards everything but the
    public paths (the card must stay readable: it is where clients learn that a token is needed),
    and its reply key signs every answer (`guards/proof.py`). Settings without GUARD_TOKEN cannot
    produce one (`guard_secret`): the guard would answer any process, unsigned.
    """
    keys = GuardKeys.derive(token)
    handler = GuardRequestHandler(decide, spec.name, keys, max_text_chars=max_text_chars,
                                  max_text_bytes=max_text_bytes)
    card = build_agent_card(spec, url)
    routes = [
        *create_agent_card_routes(card, card_url=AGENT_CARD_WELL_KNOWN_PATH),
        *create_agent_card_routes(card, card_url=LEGACY_CARD_PATH),
        Route(HEALTH_PATH, _healthz, methods=["GET"]),
        *create_jsonrpc_routes(handler, DEFAULT_RPC_URL, enable_v0_3_compat=True),
    ]
    # Starlette applies the list outside-in: refuse a missing token before reading any body.
    return Starlette(routes=routes, middleware=[
        Middleware(BearerAuth, token=keys.bearer, public_paths=PUBLIC_PATHS),
        Middleware(RequestBody, max_bytes=max_body_bytes),
    ])
