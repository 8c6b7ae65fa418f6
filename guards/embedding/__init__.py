"""Local sentence embeddings without PyTorch (see `embedder.py`)."""

from guards.embedding.embedder import Embedder, Vectors
from guards.embedding.pins import ModelPins, PinnedFile

__all__ = ["Embedder", "ModelPins", "PinnedFile", "Vectors"]
