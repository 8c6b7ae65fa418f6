"""The desk's proof of identity for the Toolbox: an ES256 key, short-lived tokens, the public JWKS.

The Toolbox's `generic` auth service verifies each token against our JWKS and fills every tool's
`customer_email` from the token's `email` claim (toolbox/tools.yaml), so a caller that cannot sign
with this key reaches no row. The private key is created on first use, mode 0600, and never leaves
the file; the Toolbox only ever sees the public half.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey

from pipeline.core.private_files import read_private_file

#: The auth service's name in tools.yaml; toolbox-core sends the token as the `<name>_token` header.
AUTH_SERVICE = "desk"
#: The `aud` the Toolbox requires (tools.yaml `audience`), so a token minted for anything else fails.
AUDIENCE = "supportdesk-toolbox"
ALGORITHM = "ES256"


def _new_key() -> str:
    key = ECKey.generate_key("P-256", parameters={"alg": ALGORITHM, "use": "sig"}, private=True)
    key.ensure_kid()
    return json.dumps(key.as_dict(private=True))


def load_or_create_key(path: Path) -> ECKey:
    """The private signing key at `path`; generated there (0600) if absent, safely under races."""
    key = ECKey.import_key(json.loads(read_private_file(path, _new_key)))
    if not key.is_private or key.kid is None:
        raise ValueError(f"{path} does not hold a private signing key with a key id")
    return key


def public_jwks(key: ECKey) -> dict[str, Any]:
    return {"keys": [key.as_dict(private=False)]}


class TokenIssuer:
    """Mints one token per tool call: the session's email, our audience, a lifetime of `ttl_s`.

    `issuer` must be the Toolbox's `authorizationServer` URL exactly: the Toolbox rejects any other.
    """

    def __init__(self, key: ECKey, *, issuer: str, ttl_s: int) -> None:
        self._key = key
        self._header = {"alg": ALGORITHM, "kid": key.kid, "typ": "JWT"}
        self.issuer = issuer
        self.ttl_s = ttl_s

    @classmethod
    def from_file(cls, path: Path, *, issuer: str, ttl_s: int) -> TokenIssuer:
        return cls(load_or_create_key(path), issuer=issuer, ttl_s=ttl_s)

    def issue(self, email: str, *, now: float | None = None) -> str:
        issued = int(time.time() if now is None else now)
        claims = {"iss": self.issuer, "aud": AUDIENCE, "sub": email, "email": email, "iat": issued,
                  "exp": issued + self.ttl_s, "jti": secrets.token_urlsafe(12)}
        return jwt.encode(self._header, claims, self._key)
