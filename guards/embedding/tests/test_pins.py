"""The model files are verified by SHA-256 before use; anything else is a ConfigError."""

from __future__ import annotations

from pathlib import Path

import pytest

from guards.embedding import Embedder, ModelPins
from guards.embedding.pins import verify_sha256
from pipeline.core.errors import ConfigError

WRONG = "0" * 64


def test_pinned_files_verify() -> None:
    pins = ModelPins.default()
    for pinned in (pins.model, pins.tokenizer):
        verify_sha256(pinned.locate(), pinned.sha256)


@pytest.mark.parametrize("which", ["model", "tokenizer"])
def test_hash_mismatch_refuses_to_load(which: str) -> None:
    pins = ModelPins.default()
    bad = getattr(pins, which).model_copy(update={"sha256": WRONG})
    with pytest.raises(ConfigError, match="sha256"):
        Embedder.load(pins.model_copy(update={which: bad}))


def test_a_changed_file_fails_verification(tmp_path: Path) -> None:
    original = ModelPins.default().tokenizer
    copy = tmp_path / "tokenizer.json"
    copy.write_bytes(original.locate().read_bytes() + b" ")
    with pytest.raises(ConfigError, match="sha256"):
        verify_sha256(copy, original.sha256)


@pytest.mark.parametrize("update", [{"package": "no_such_package_here"}, {"path": "missing/model.onnx"}])
def test_missing_file_is_a_config_error(update: dict[str, str]) -> None:
    pins = ModelPins.default()
    with pytest.raises(ConfigError):
        Embedder.load(pins.model_copy(update={"model": pins.model.model_copy(update=update)}))
