"""`supportdesk eval`: run the case files through the REAL pipeline and score them from the run logs.

    supportdesk eval                      # boots a private desk; run logs go to the desk's runs/
    supportdesk eval --against-running    # uses the desk `make up` started (settings from .env)
    supportdesk eval --datasets ../shared/datasets --dataset-sample 40

Prints a summary table and writes the summary JSON to `.supportdesk/evals/<UTC timestamp>.json`
(and to `--json PATH`). Every failure names its turn ids: open `runs/<turn_id>.json` or its trace.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from evals.casefiles import CASES_DIR, Suite, dataset_sample, load_suite, status_phrases
from evals.dbfacts import read_facts
from evals.report import EvalSummary, print_summary, write_summary
from pipeline.settings import Settings, load_settings, settings_hash

if TYPE_CHECKING:
    from pipeline.desk import Pipeline

#: The desk's own default run-log folder (the repo's `runs/`), also for a private desk.
DEFAULT_RUNS_DIR: Path = Settings.model_fields["runs_dir"].default


async def evaluate(pipeline: Pipeline, suite: Suite, *, desk: str, cases_dir: Path = CASES_DIR,
                   on_turn: Callable[[str], None] = lambda _: None) -> EvalSummary:
    """Run `suite` through `pipeline`, then score it from the run logs in the pipeline's runs_dir."""
    # The turn engine (ADK, models) loads here, not at import: `supportdesk db migrate` and
    # `supportdesk up` share this command's parser and must not pay for it.
    from evals.execute import run_suite
    from evals.scoring import score

    settings = pipeline.settings
    started = datetime.now(UTC)
    facts = await read_facts(settings)
    runs = await run_suite(pipeline, suite, facts, on_turn)
    scores = await score(runs, suite, facts, settings, settings.runs_dir, status_phrases(cases_dir))
    return EvalSummary(started_at=started, finished_at=datetime.now(UTC), desk=desk, model=settings.model_name,
                       settings_hash=settings_hash(settings), runs_dir=str(settings.runs_dir.resolve()),
                       **scores.model_dump())


def _suite(args: argparse.Namespace) -> Suite:
    suite = load_suite(args.cases)
    if args.limit:
        suite = Suite(tasks=suite.tasks[: args.limit], isolation=suite.isolation[: args.limit],
                      attacks=suite.attacks[: args.limit], legit=suite.legit[: args.limit])
    if args.datasets:
        suite.datasets = dataset_sample(args.datasets, args.dataset_sample)
    return suite


async def _run(args: argparse.Namespace, console: Console) -> EvalSummary:
    suite = _suite(args)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("starting the desk", total=suite.size())

        def on_turn(label: str) -> None:
            progress.update(task, advance=1, description=label)

        if args.against_running:
            from pipeline.desk import Pipeline

            overrides: dict[str, Any] = {"runs_dir": args.runs_dir} if args.runs_dir else {}
            pipeline = await Pipeline.build(load_settings(**overrides))
            try:
                return await evaluate(pipeline, suite, desk="running", cases_dir=args.cases, on_turn=on_turn)
            finally:
                await pipeline.aclose()
        from evals.harness import private_desk

        with tempfile.TemporaryDirectory(prefix="supportdesk-eval-") as root:
            runs_dir = (args.runs_dir or DEFAULT_RUNS_DIR).resolve()
            async with private_desk(Path(root), runs_dir=runs_dir) as (_, pipeline):
                return await evaluate(pipeline, suite, desk="private", cases_dir=args.cases, on_turn=on_turn)


def run_command(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    summary = asyncio.run(_run(args, console))
    print_summary(console, summary)
    for path in write_summary(summary, *([args.json] if args.json else [])):
        console.print(f"summary written to {path}")
    return 0


def register(subparsers: Any) -> None:
    """Add `eval` to the `supportdesk` command (`subparsers` from `ArgumentParser.add_subparsers`)."""
    parser = subparsers.add_parser("eval", help="run the eval case files through the real desk and score them",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against-running", action="store_true",
                        help="use the running desk (make up) instead of booting a private one")
    parser.add_argument("--runs-dir", type=Path, default=None,
                        help=f"folder of the run logs (default: {DEFAULT_RUNS_DIR}, or the desk's RUNS_DIR)")
    parser.add_argument("--cases", type=Path, default=CASES_DIR, help="case file folder (desk/ and judge/)")
    parser.add_argument("--datasets", type=Path, default=None,
                        help="also run a fixed sample of the public data sets in this folder (reported apart)")
    parser.add_argument("--dataset-sample", type=int, default=40, help="messages sampled per public set")
    parser.add_argument("--limit", type=int, default=0, help="at most this many cases per section (smoke run)")
    parser.add_argument("--json", type=Path, default=None, help="also write the summary JSON here")
    parser.set_defaults(handler=run_command)
