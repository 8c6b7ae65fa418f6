"""`/api/login`, `/api/logout`, `/api/me`: cookie sessions, one generic failure message, rate-limited."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from db.accounts import LOGIN_FAILED, Account, PasswordChecksBusy, normalise_email
from web import devices
from web.http import read_json
from web.resources import WebResources
from web.sessions import COOKIE

LOGIN_MAX_BODY_BYTES = 4096
LOGIN_THROTTLED = "Too many failed logins. Please wait and try again."
LOGIN_BUSY = "We are checking many logins right now. Please try again in a moment."


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


def _profile(account: Account) -> dict[str, object]:
    # No trace link or flag: traces are for operators, who read them in Phoenix with its own login.
    return {"email": account.email, "full_name": account.full_name}


async def login(request: Request) -> Response:
    desk = resources(request)
    try:
        form = LoginRequest.model_validate(await read_json(request, max_bytes=LOGIN_MAX_BODY_BYTES))
    except ValidationError:
        raise HTTPException(422, "Enter an email and a password.") from None
    email = normalise_email(form.email)
    # The peer's address: X-Forwarded-For counts only from FORWARDED_ALLOW_IPS (web/app.py).
    address = request.client.host if request.client else "unknown"
    device = await desk.devices.recognise(request.cookies.get(devices.COOKIE), email)
    # Each attempt reserves its slots before the password is checked, so concurrent guesses
    # cannot all slip past the limit; a successful login gives them back (only failures count).
    reservation = await desk.login_limits.reserve(address=address, email=email, device=device)
    if reservation.retry_after_s is not None:
        return JSONResponse({"error": LOGIN_THROTTLED}, 429, headers={"Retry-After": str(reservation.retry_after_s)})
    try:
        account = await desk.passwords.verify(desk.pool, email, form.password)
    except PasswordChecksBusy:
        await desk.login_limits.give_back(reservation)  # not a guess: nothing was checked
        return JSONResponse({"error": LOGIN_BUSY}, 503, headers={"Retry-After": "1"})
    if account is None:
        return JSONResponse({"error": LOGIN_FAILED}, 401)
    await desk.login_limits.give_back(reservation)
    secure = request.url.scheme == "https"
    response = JSONResponse(_profile(account))
    response.set_cookie(COOKIE, await desk.sessions.create(account.email), max_age=desk.sessions.ttl_s, path="/",
                        httponly=True, samesite="strict", secure=secure)
    if device is None:
        response.set_cookie(devices.COOKIE, await desk.devices.remember(account.email), max_age=desk.devices.ttl_s,
                            path="/api/login", httponly=True, samesite="strict", secure=secure)
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
    return JSONResponse(_profile(await current_account(request)))
