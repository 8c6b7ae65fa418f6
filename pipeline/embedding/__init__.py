"""Local sentence embeddings without PyTorch (see `embedder.py`)."""

from pipeline.embedding.embedder import Embedder, Vectors
from pipeline.embedding.pins import ModelPins, PinnedFile

__all__ = ["Embedder", "ModelPins", "PinnedFile", "Vectors"]
