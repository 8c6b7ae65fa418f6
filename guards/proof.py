"""How the pipeline and its guards prove themselves to each other, from the one shared GUARD_TOKEN.

Two keys are derived from the token (HMAC-SHA256 of the token over a purpose label):
- the *bearer*, sent by the pipeline on every request (`Authorization: Bearer <hex>`);
- the *reply key*, never sent: the guard signs each reply with it and the pipeline checks it.

Deriving both keeps what crosses the wire useless for forging: a process that binds a guard's
port (say, while the guard restarts) receives the bearer, but cannot compute the reply key from
it, so its answers fail the check and the turn ends in an error.

The reply's `proof` (a field of its data part, which every A2A client passes through) is an
HMAC over the guard's name, the request's message id, the SHA-256 of the text it decided on,
and the result as canonical JSON, so a genuine reply cannot be replayed to another request,
another text, or the other guard. Both sides compute it over the result's validated model dump:
the A2A data part is a protobuf `Value`, whose integers come back as floats.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import SecretStr

#: The data-part field carrying the reply's HMAC (hex).
PROOF_FIELD = "proof"
_BEARER_LABEL = b"supportdesk guard bearer v1"
_REPLY_LABEL = b"supportdesk guard reply v1"


def _derive(secret: SecretStr, label: bytes) -> bytes:
    return hmac.new(secret.get_secret_value().encode(), label, hashlib.sha256).digest()


@dataclass(frozen=True, repr=False)
class GuardKeys:
    """The bearer and the reply key of one GUARD_TOKEN. `repr` shows neither."""

    bearer: str
    reply_key: bytes

    @classmethod
    def derive(cls, secret: SecretStr) -> GuardKeys:
        return cls(bearer=_derive(secret, _BEARER_LABEL).hex(), reply_key=_derive(secret, _REPLY_LABEL))

    @property
    def authorization(self) -> str:
        return f"Bearer {self.bearer}"

    def sign(self, guard: str, message_id: str, text: str, result: Mapping[str, object]) -> str:
        signed = json.dumps(
            {"guard": guard, "message_id": message_id, "result": result,
             "text_sha256": hashlib.sha256(text.encode()).hexdigest()},
            sort_keys=True, separators=(",", ":"), ensure_ascii=False,
        )
        return hmac.new(self.reply_key, signed.encode(), hashlib.sha256).hexdigest()

    def verify(self, proof: object, guard: str, message_id: str, text: str, result: Mapping[str, object]) -> bool:
        expected = self.sign(guard, message_id, text, result)
        return isinstance(proof, str) and hmac.compare_digest(proof.encode(), expected.encode())

    def __repr__(self) -> str:
        return "GuardKeys(<derived from GUARD_TOKEN>)"
