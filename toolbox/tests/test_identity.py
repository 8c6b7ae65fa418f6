"""The desk's signing key: created private on first use, the same key afterwards, refused if exposed."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from toolbox.identity import AUDIENCE, TokenIssuer, load_or_create_key, public_jwks


def test_first_use_creates_a_private_key_file_and_later_uses_load_it(tmp_path: Path) -> None:
    path = tmp_path / "state" / "key.json"
    first = load_or_create_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_key(path).kid == first.kid
    assert [p.name for p in path.parent.iterdir()] == ["key.json"], "no temporary file is left behind"


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "key.json"
    load_or_create_key(path)
    path.chmod(0o640)
    with pytest.raises(ValueError, match="readable by other users"):
        load_or_create_key(path)


def test_the_published_jwks_holds_no_private_part_and_verifies_the_tokens(tmp_path: Path) -> None:
    key = load_or_create_key(tmp_path / "key.json")
    jwks = public_jwks(key)
    assert [sorted(k) for k in jwks["keys"]] == [["alg", "crv", "kid", "kty", "use", "x", "y"]], "no private 'd'"
    token = TokenIssuer(key, issuer="http://127.0.0.1:1", ttl_s=30).issue("ava.chen@example.com", now=1000)
    claims = jwt.decode(token, KeySet.import_key_set(jwks)).claims  # type: ignore[arg-type]
    assert (claims["email"], claims["aud"], claims["iss"], claims["exp"] - claims["iat"]) == (
        "ava.chen@example.com", AUDIENCE, "http://127.0.0.1:1", 30)
