"""The int8 build of MiniLM: made once into its folder, checked on every load, rebuilt when damaged."""

from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from guards.embedding import Embedder, ModelPins
from guards.embedding.quantized import RECIPE, built_name, int8_model

PINS = ModelPins.default()
TEXTS = ["Where is my parcel?", "Please always leave deliveries with the neighbour.", "Bonjour, où est ma commande ?"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return int8_model(PINS.model.verified_path(), PINS.model.sha256, tmp_path_factory.mktemp("models"))


def test_the_build_is_named_for_its_source_runtime_and_recipe(built: Path) -> None:
    assert built.name == built_name(PINS.model.sha256)
    assert PINS.model.sha256[:16] in built.name and ort.__version__ in built.name and RECIPE in built.name
    assert built.with_name(built.name + ".sha256").read_text().strip() == hashlib.sha256(built.read_bytes()).hexdigest()
    assert [p.name for p in built.parent.iterdir() if p.name.startswith(".build-")] == []


def test_a_sound_build_is_reused(built: Path) -> None:
    before = built.stat().st_mtime_ns
    assert int8_model(PINS.model.verified_path(), PINS.model.sha256, built.parent) == built
    assert built.stat().st_mtime_ns == before


def test_vectors_do_not_depend_on_the_folder_the_build_was_made_in(built: Path, embedder: Embedder) -> None:
    # The build is deterministic: a fresh one gives exactly the vectors the desk's embedder gives.
    fresh = Embedder.load(cache_size=0, model_dir=built.parent)
    np.testing.assert_array_equal(fresh.embed(TEXTS), embedder.embed(TEXTS))


def test_a_damaged_build_is_made_again(built: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "models"
    shutil.copytree(built.parent, folder)
    damaged = folder / built.name
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="guards.embedding.quantized"):
        assert int8_model(PINS.model.verified_path(), PINS.model.sha256, folder) == damaged
    assert "rebuilding" in caplog.text
    assert damaged.read_bytes() == built.read_bytes()
