# Until the root conftest lists pipeline.embedding.tests.fixtures among its plugins.
from pipeline.embedding.tests.fixtures import embedder

__all__ = ["embedder"]
