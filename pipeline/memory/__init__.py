"""Customer memory: one interface (`MemoryStore`), an embedded and a cloud backend."""

from pipeline.memory.models import Dropped, Memory, Recall, SaveResult
from pipeline.memory.store import MemoryStore

__all__ = ["Dropped", "Memory", "MemoryStore", "Recall", "SaveResult"]
