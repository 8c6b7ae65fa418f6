"""Our ONNX int8 vectors against the PyTorch reference model's, recorded in reference_vectors.json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from guards.embedding import Embedder

FIXTURE = json.loads(Path(__file__).with_name("reference_vectors.json").read_text())
CASES = FIXTURE["cases"]


def test_fixture_covers_twenty_sentences() -> None:
    assert len(CASES) >= 20
    assert all(len(case["vector"]) == 384 for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=[case["text"][:30] for case in CASES])
def test_matches_reference_model(embedder: Embedder, case: dict[str, object]) -> None:
    reference = np.asarray(case["vector"], dtype=np.float32)
    ours = embedder.embed_one(str(case["text"]))
    cosine = float(ours @ reference) / float(np.linalg.norm(reference))
    assert cosine >= 0.99, f"cosine {cosine:.4f}"
