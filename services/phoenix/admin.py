"""Phoenix's operator login must not keep Phoenix's published default password.

Phoenix creates `admin@localhost` on its first start, authentication on or off, with
`PHOENIX_DEFAULT_ADMIN_INITIAL_PASSWORD` — or `admin` when that is unset — and never changes it
afterwards. A data folder from a desk that ran Phoenix before authentication was switched on
therefore still answers `admin`/`admin`; this sets the generated password instead, at start-up.
"""

from __future__ import annotations

import httpx

from pipeline.core.errors import ServiceStartError
from pipeline.core.settings import Settings

ADMIN_EMAIL = "admin@localhost"
PHOENIX_DEFAULT_PASSWORD = "admin"
_PATCH_VIEWER = "mutation($input: PatchViewerInput!) { patchViewer(input: $input) { __typename } }"


def secure_default_admin(settings: Settings) -> bool:
    """Replace a default `admin` password by the generated one; True when it had to."""
    assert settings.phoenix_default_admin_initial_password is not None  # start_phoenix checked
    ours = settings.phoenix_default_admin_initial_password.get_secret_value()
    with httpx.Client(base_url=settings.phoenix_url, timeout=10.0, trust_env=False) as http:
        login = http.post("/auth/login", json={"email": ADMIN_EMAIL, "password": PHOENIX_DEFAULT_PASSWORD})
        if login.status_code in (401, 403):  # not the default password (or no password logins at all)
            return False
        if login.status_code != 204:  # unknown: we cannot tell whether admin/admin still works
            raise ServiceStartError(f"Phoenix answered HTTP {login.status_code} when the desk checked that "
                                    f"{ADMIN_EMAIL} no longer has the default password; try again")
        reply = http.post("/graphql", json={"query": _PATCH_VIEWER, "variables": {"input": {
            "currentPassword": PHOENIX_DEFAULT_PASSWORD, "newPassword": ours}}})
    if reply.status_code != 200 or reply.json().get("errors"):
        raise ServiceStartError(f"Phoenix's {ADMIN_EMAIL} still has the default password and it could not be "
                                f"changed (HTTP {reply.status_code}); change it in Phoenix or remove its data folder")
    return True
