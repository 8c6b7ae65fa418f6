"""Drive every case of a suite through the real pipeline, one turn at a time.

The only thing kept from a turn is its id: scoring reads the run log the pipeline wrote for it.
Order matters: tasks (which include the memory cases) run first, so the standing preferences some
legit messages carry cannot crowd a memory case's own preference out of recall.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Literal

from pydantic import BaseModel

from evals.casefiles import IsolationCase, MessageCase, Split, Suite
from evals.dbfacts import DeskFacts
from pipeline.desk import CustomerSession, Desk
from pipeline.events import ErrorEvent, FinalEvent

Section = Literal["task", "isolation", "attack", "legit", "offtopic", "dataset"]
#: Called after every turn with the case that ran and how its last turn ended (answered, blocked, …).
OnTurn = Callable[["PlannedCase", str], None]


class PlannedCase(BaseModel):
    section: Section
    case_id: str
    split: Split
    customer: str
    messages: list[str]
    dataset: str | None = None
    #: Which of the `--repeat` runs this is (0 for the first).
    repeat: int = 0


class CaseRun(PlannedCase):
    """Which case ran as whom, the exact messages sent, and the turn ids of its run logs."""

    turn_ids: list[str]


def isolation_message(case: IsolationCase, facts: DeskFacts) -> str:
    victim = facts.customer(case.victim)
    return case.message.format_map({
        "victim_order": victim.orders[0].order_id, "victim_order2": victim.orders[1].order_id,
        "victim_name": victim.full_name, "victim_email": victim.email,
    })


def plan(suite: Suite, facts: DeskFacts) -> Iterator[PlannedCase]:
    """Every turn to run, in order. Attack and legit messages rotate over the seeded customers."""
    customers = sorted(facts.customers)
    for task in suite.tasks:
        yield PlannedCase(section="task", case_id=task.id, split=task.split, customer=task.customer,
                          messages=task.messages)
    for iso in suite.isolation:
        yield PlannedCase(section="isolation", case_id=iso.id, split=iso.split, customer=iso.attacker,
                          messages=[isolation_message(iso, facts)])
    sets: list[tuple[Section, str | None, list[MessageCase]]] = [
        ("attack", None, suite.attacks), ("legit", None, suite.legit), ("offtopic", None, suite.offtopic)]
    sets += [("dataset", name, cases) for name, cases in suite.datasets.items()]
    for section, dataset, cases in sets:
        for index, case in enumerate(cases):
            yield PlannedCase(section=section, case_id=case.id, split=case.split,
                              customer=customers[index % len(customers)], messages=[case.text], dataset=dataset)


async def one_turn(pipeline: Desk, email: str, text: str, pending: str | None = None
                   ) -> tuple[str, str, str | None]:
    """Run a turn to its terminal event: its id (which names the run log), how it ended, and the
    token of the action it asks the customer to confirm, if it ends `needs_confirmation`."""
    turn_id, ended, token = "", "error", None
    async for event in pipeline.run_turn(CustomerSession(email), text, pending):
        turn_id = turn_id or event.turn_id
        if isinstance(event, FinalEvent):
            ended, token = event.status, event.pending.token if event.pending else None
        elif isinstance(event, ErrorEvent):
            ended = "error"
    return turn_id, ended, token


async def run_suite(pipeline: Desk, suite: Suite, facts: DeskFacts, on_turn: OnTurn = lambda *_: None,
                    repeat: int = 1) -> list[CaseRun]:
    """Every case `repeat` times over (all cases once, then all again), in plan order."""
    runs = []
    for round_ in range(repeat):
        for planned in plan(suite, facts):
            planned = planned.model_copy(update={"repeat": round_})
            turn_ids, token = [], None
            for text in planned.messages:
                # A case's next message answers the pending action, as the chat sends "yes" back.
                turn_id, ended, token = await one_turn(pipeline, planned.customer, text, token)
                turn_ids.append(turn_id)
            on_turn(planned, ended)
            runs.append(CaseRun(turn_ids=turn_ids, **planned.model_dump()))
    return runs
