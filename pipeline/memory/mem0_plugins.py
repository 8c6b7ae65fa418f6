"""The desk's providers for Mem0's factories. Import only after `mem0_env.prepare_mem0()`.

Mem0 builds an embedder and an LLM client for every `Memory`. The embedder is our local ONNX
model; the LLM is one that refuses to run: the desk saves with `infer=False`, so Mem0 must never
call a model, and if it ever tried, the call fails loudly instead of going to a network.
"""

from __future__ import annotations

from typing import Any, Literal

import psycopg
from mem0.configs.embeddings.base import BaseEmbedderConfig
from mem0.embeddings.base import EmbeddingBase
from mem0.embeddings.configs import EmbedderConfig
from mem0.llms.base import LLMBase
from mem0.llms.configs import LlmConfig
from mem0.utils.factory import EmbedderFactory, LlmFactory
from psycopg.adapt import Dumper

from guards.embedding import Embedder
from pipeline.core.errors import MemoryBackendError

EMBEDDER_PROVIDER = "supportdesk-local-onnx"
LLM_PROVIDER = "supportdesk-no-llm"


class VectorValues(list[float]):
    """An embedding as Mem0 expects it (a list of floats) that psycopg sends as pgvector text.

    Mem0's pgvector store passes embeddings as query parameters; psycopg would send a plain
    list as a float8[] array, which costs ~1.8 ms of adaptation per call here against ~0.1 ms
    for the '[x,y,...]' text that the `vector` type parses itself.
    """


class VectorValuesDumper(Dumper):
    oid = 0  # unknown: PostgreSQL takes the type from the column or the ::vector cast

    def dump(self, obj: VectorValues) -> bytes:
        return ("[" + ",".join(f"{x:.8g}" for x in obj) + "]").encode()


class LocalEmbedding(EmbeddingBase):
    """Mem0 embedder backed by the process's `Embedder` (passed in `model_kwargs["embedder"]`)."""

    def __init__(self, config: BaseEmbedderConfig | None = None) -> None:
        super().__init__(config)
        embedder = self.config.model_kwargs.get("embedder")
        if not isinstance(embedder, Embedder):
            raise TypeError("LocalEmbedding needs model_kwargs={'embedder': Embedder}")
        self._embedder = embedder

    def embed(self, text: str, memory_action: Literal["add", "search", "update"] | None = None) -> list[float]:
        return VectorValues(self._embedder.embed_one(text).tolist())

    def embed_batch(self, texts: list[str], memory_action: str = "add") -> list[list[float]]:
        return [VectorValues(row) for row in self._embedder.embed(texts).tolist()]


class RefusingLlm(LLMBase):
    def generate_response(self, messages: list[dict[str, str]], *args: Any, **kwargs: Any) -> str:
        raise MemoryBackendError("mem0 tried to call a language model; the desk stores memories with "
                                 "infer=False and has no model for mem0")


def register() -> None:
    """Make both providers known to Mem0's factories, and our vectors to psycopg (idempotent)."""
    psycopg.adapters.register_dumper(VectorValues, VectorValuesDumper)
    EmbedderFactory.provider_to_class[EMBEDDER_PROVIDER] = f"{__name__}.{LocalEmbedding.__name__}"
    LlmFactory.register_provider(LLM_PROVIDER, f"{__name__}.{RefusingLlm.__name__}")


def embedder_config(embedder: Embedder) -> EmbedderConfig:
    # Mem0's config model only accepts its built-in provider names; the factory itself takes any
    # registered one, so the validated model is bypassed for our provider alone.
    return EmbedderConfig.model_construct(
        provider=EMBEDDER_PROVIDER, config={"model_kwargs": {"embedder": embedder}, "embedding_dims": embedder.dims}
    )


def llm_config() -> LlmConfig:
    return LlmConfig.model_construct(provider=LLM_PROVIDER, config={})
