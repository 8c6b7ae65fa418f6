"""Customer memory: one interface (`MemoryStore`), an embedded and a cloud backend.

    store = build_memory(settings, embedder=embedder)       # once per process
    recall = await store.recall(user_id=email, query=text)  # Recall(kept=[Memory], dropped=[Dropped])
    if worth_saving(text):                                   # the customer's own words only
        await store.save(user_id=email, text=text)           # SaveResult
    await store.aclose()

Every backend failure or timeout is `pipeline.core.errors.MemoryBackendError`; a blank `user_id`
is a `ValueError` (a programming error, never a customer's doing).
"""

from pipeline.memory.factory import build_memory
from pipeline.memory.policy import worth_saving
from pipeline.memory.records import Dropped, Memory, Recall, SaveResult
from pipeline.memory.store import MemoryStore

__all__ = ["Dropped", "Memory", "MemoryStore", "Recall", "SaveResult", "build_memory", "worth_saving"]
