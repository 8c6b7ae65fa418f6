"""`/api/login`, `/api/logout`, `/api/me`: cookie sessions, one generic failure message, rate-limited."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from web.accounts import LOGIN_FAILED, Account, normalise_email
from web.bodies import read_json
from web.resources import WebResources
from web.sessions import COOKIE

LOGIN_MAX_BODY_BYTES = 4096
LOGIN_THROTTLED = "Too many failed logins. Please wait and try again."


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    email: str = Field(min_length=3, max_length=320)
    password: str = Field(min_length=1, max_length=1024)


def resources(request: Request) -> WebResources:
    desk: WebResources = request.app.state.desk
    return desk


async def current_account(request: Request) -> Account:
    """The logged-in customer, or 401."""
    account = await resources(request).sessions.lookup(request.cookies.get(COOKIE))
    if account is None:
        raise HTTPException(401, "Please log in.")
    return account


def _profile(account: Account, desk: WebResources) -> dict[str, object]:
    return {"email": account.email, "full_name": account.full_name, "tracing": desk.settings.tracing_enabled}


async def login(request: Request) -> Response:
    desk = resources(request)
    try:
        form = LoginRequest.model_validate(await read_json(request, max_bytes=LOGIN_MAX_BODY_BYTES))
    except ValidationError:
        raise HTTPException(422, "Enter an email and a password.") from None
    email = normalise_email(form.email)
    address = request.client.host if request.client else "unknown"
    settings = desk.settings
    # Each attempt reserves a slot before the password is checked, so concurrent guesses cannot
    # all slip past the limit; a successful login gives its slot back (only failures count).
    hits = [await desk.limiter.hit(bucket, limit=settings.login_max_attempts, window_s=settings.login_window_s)
            for bucket in (f"login:address:{address}", f"login:email:{email}")]
    if not all(hit.allowed for hit in hits):
        retry = max(hit.retry_after_s for hit in hits if not hit.allowed)
        return JSONResponse({"error": LOGIN_THROTTLED}, 429, headers={"Retry-After": str(retry)})
    account = await desk.passwords.verify(desk.pool, email, form.password)
    if account is None:
        return JSONResponse({"error": LOGIN_FAILED}, 401)
    for hit in hits:
        await desk.limiter.refund(hit)
    token = await desk.sessions.create(account.email)
    response = JSONResponse(_profile(account, desk))
    response.set_cookie(COOKIE, token, max_age=desk.sessions.ttl_s, path="/", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")
    return response


async def logout(request: Request) -> Response:
    token = request.cookies.get(COOKIE)
    if token:
        await resources(request).sessions.revoke(token)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
    return response


async def me(request: Request) -> Response:
    return JSONResponse(_profile(await current_account(request), resources(request)))
