"""Memories are untrusted text: screened on the way into the store and again on the way out.

A memory is the customer's own earlier words, replayed into every later prompt, so it is an
injection channel that outlives the turn that wrote it (and a memory may reach the store some
other way: an older desk, a cloud console, a restored backup). Both directions therefore check it:

* before a save, the Security Judge screens the text; a block means it is not stored;
* at recall, a memory that reads as an instruction to the assistant (`policy.instructs_the_assistant`)
  is dropped without asking anyone, and the Judge screens every other kept memory, concurrently;
  what it blocks is dropped. Dropped memories are reported by id, with the Judge's verdict, never
  with their text.

A Judge that cannot answer raises its `GuardUnavailable`: a memory is never saved or used unscreened.
"""

from __future__ import annotations

import asyncio
from typing import Literal, Protocol

from guards.schema import Verdict
from pipeline.memory.policy import instructs_the_assistant
from pipeline.memory.records import Dropped, Memory, Recall


class Screener(Protocol):
    """The Security Judge as the memory screening sees it (`pipeline.clients.guards.JudgeClient`)."""

    async def screen(self, text: str) -> Verdict: ...


async def screen_recall(recall: Recall, judge: Screener) -> Recall:
    """`recall` with every kept memory that is an instruction or that the Judge blocks moved to `dropped`."""
    dropped = list(recall.dropped)
    candidates: list[Memory] = []
    for memory in recall.kept:
        if instructs_the_assistant(memory.text):
            dropped.append(_dropped(memory, "instruction"))
        else:
            candidates.append(memory)
    verdicts = await asyncio.gather(*(judge.screen(memory.text) for memory in candidates))
    kept = []
    for memory, verdict in zip(candidates, verdicts, strict=True):
        if verdict.verdict == "block":
            dropped.append(_dropped(memory, "judge_blocked", verdict))
        else:
            kept.append(memory)
    return Recall(kept=kept, dropped=dropped)


def _dropped(memory: Memory, why: Literal["instruction", "judge_blocked"], verdict: Verdict | None = None
             ) -> Dropped:
    return Dropped(id=memory.id, score=memory.score, chars=len(memory.text), why=why, judge=verdict)
