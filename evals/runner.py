"""`supportdesk eval`: run the case files through the REAL pipeline and score them from the run logs.

    supportdesk eval                      # boots a private desk; run logs go to the desk's runs/
    supportdesk eval --against-running    # uses the desk `make up` started (settings from .env)
    supportdesk eval --datasets ../shared/datasets --dataset-sample 40 --publish

Writes `<runs dir>/eval-<UTC timestamp>/summary.json` and `report.html` (one self-contained page)
beside the run logs `<runs dir>/<turn_id>.json`; prints the tables (or, with --json, the summary
JSON on stdout). The headline and the gates (`evals/thresholds.toml`) use the `test` split. Exits 1
when a gate is missed. `--publish` also writes the summary to `evals/results/latest.json` and
refreshes the figures of DESIGN.md's gate and public-set rows from it (a test keeps them in step).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from evals.casefiles import CASES_DIR, Suite, load_suite, status_phrases
from evals.dbfacts import read_facts
from evals.gates import THRESHOLDS, check_gates, exit_code
from evals.report import EvalSummary, print_summary
from pipeline.core.settings import Settings, load_settings, settings_hash

if TYPE_CHECKING:
    from evals.execute import OnTurn
    from pipeline.desk import Desk

#: The desk's own default run-log folder (the repo's `runs/`), also for a private desk.
DEFAULT_RUNS_DIR: Path = Settings.model_fields["runs_dir"].default
#: The latest full run's summary, the one DESIGN.md quotes.
RESULTS = Path(__file__).parent / "results" / "latest.json"
#: Models whose answers and verdicts are a pure function of the message (repeats add nothing).
DETERMINISTIC_MODELS = frozenset({"offline"})


def repeat_plan(model: str, asked: int) -> tuple[int, str]:
    """How many times each case runs, and the sentence the report prints about it."""
    if model in DETERMINISTIC_MODELS:
        asked_note = f" (asked for k={asked})" if asked > 1 else ""
        return 1, (f"The {model} model is deterministic: a message always gets the same verdict and answer, so "
                   f"k runs would repeat one result and pass^k equals pass^1. This run used k=1{asked_note}.")
    return asked, (f"pass^{asked}: the share of cases that went the wanted way in every one of {asked} runs "
                   f"(model {model} is not deterministic).")


async def evaluate(pipeline: Desk, suite: Suite, *, desk: str, cases_dir: Path = CASES_DIR, repeat: int = 1,
                   thresholds: Path = THRESHOLDS, on_turn: OnTurn = lambda *_: None) -> EvalSummary:
    """Run `suite` through `pipeline`, then score it from the run logs in the pipeline's runs_dir."""
    # The turn engine (ADK, models) loads here, not at import: `supportdesk db migrate` and
    # `supportdesk up` share this command's parser and must not pay for it.
    from evals.execute import run_suite
    from evals.scoring import score

    settings = pipeline.settings
    k, note = repeat_plan(settings.model_name, repeat)
    started = datetime.now(UTC)
    facts = await read_facts(settings)
    runs = await run_suite(pipeline, suite, facts, on_turn, repeat=k)
    scores = await score(runs, suite, facts, settings, settings.runs_dir, status_phrases(cases_dir), repeat=k)
    head = scores.splits["test"]
    return EvalSummary(started_at=started, finished_at=datetime.now(UTC), desk=desk, model=settings.model_name,
                       settings_hash=settings_hash(settings), runs_dir=str(settings.runs_dir.resolve()),
                       deterministic=settings.model_name in DETERMINISTIC_MODELS, repeat=k, repeat_note=note,
                       turns=scores.splits["all"].turns, gates=check_gates(head.metrics, head.latency, thresholds),
                       splits=scores.splits, datasets=scores.datasets)


def _suite(args: argparse.Namespace) -> Suite:
    suite = load_suite(args.cases)
    if args.limit:
        suite = Suite.model_validate({name: cases[: args.limit] for name, cases in suite if isinstance(cases, list)})
    if args.datasets:
        from evals.public_sets import dataset_sample

        suite.datasets = dataset_sample(args.datasets, args.dataset_sample)
    return suite


def _expectations(suite: Suite) -> dict[str, str]:
    """Provisional per-case expectation for the progress counts (final verdicts come from the run logs)."""
    found = {c.id: "answered" for c in suite.tasks}
    for cases in [suite.attacks, suite.legit, suite.offtopic, *suite.datasets.values()]:
        found.update({c.id: "blocked" if c.expect == "block" else "not blocked" for c in cases})
    return found


async def _run(args: argparse.Namespace, console: Console) -> EvalSummary:
    suite = _suite(args)
    expected = _expectations(suite)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("[green]{task.fields[passed]} as expected[/] [red]{task.fields[failed]} not[/] "
                          "{task.fields[later]} checked at the end"), TimeElapsedColumn())
    cases = len(suite.tasks) + len(suite.isolation) + len(suite.attacks) + len(suite.legit) + len(suite.offtopic)
    cases += sum(len(v) for v in suite.datasets.values())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("starting the desk", total=cases * args.repeat, passed=0, failed=0, later=0)
        counts = {"passed": 0, "failed": 0, "later": 0}

        def on_turn(planned: Any, ended: str) -> None:
            want = expected.get(planned.case_id)
            key = "later" if want is None else "passed" if (ended == want or (
                want == "not blocked" and ended != "blocked")) else "failed"
            counts[key] += 1
            progress.update(task, advance=1, description=f"{planned.section} {planned.case_id}",
                            passed=counts["passed"], failed=counts["failed"], later=counts["later"])

        if args.against_running:
            from pipeline.desk import Desk

            overrides: dict[str, Any] = {"runs_dir": args.runs_dir} if args.runs_dir else {}
            pipeline = await Desk.build(load_settings(**overrides))
            try:
                return await _evaluate(pipeline, suite, args, "running", on_turn, progress, task, cases)
            finally:
                await pipeline.aclose()
        from evals.harness import private_desk

        with tempfile.TemporaryDirectory(prefix="supportdesk-eval-") as root:
            runs_dir = (args.runs_dir or DEFAULT_RUNS_DIR).resolve()
            async with private_desk(Path(root), runs_dir=runs_dir) as (_, pipeline):
                return await _evaluate(pipeline, suite, args, "private", on_turn, progress, task, cases)


async def _evaluate(pipeline: Desk, suite: Suite, args: argparse.Namespace, desk: str, on_turn: OnTurn,
                    progress: Progress, task: Any, cases: int) -> EvalSummary:
    # Only as many repeats as the model warrants: a deterministic one runs each case once.
    k, _ = repeat_plan(pipeline.settings.model_name, args.repeat)
    progress.update(task, total=cases * k)
    return await evaluate(pipeline, suite, desk=desk, cases_dir=args.cases, repeat=args.repeat,
                          thresholds=args.thresholds, on_turn=on_turn)


def published(summary: EvalSummary) -> str:
    """The summary DESIGN.md quotes, without its per-case lists: failing cases (their texts include
    public-set texts that may not be copied into the project) and latency samples stay in runs/."""
    data = summary.model_dump(mode="json")
    for split in data["splits"].values():
        split["latency"]["samples"] = {}
    for metric in [m for split in data["splits"].values() for m in split["metrics"].values()] + \
            list(data["datasets"].values()):
        metric["failures"] = []
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def run_command(args: argparse.Namespace) -> int:
    from evals.html_report import write_report

    progress_console = Console(stderr=True)
    summary = asyncio.run(_run(args, progress_console))
    stamp = summary.finished_at.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    paths = write_report(summary, Path(summary.runs_dir) / f"eval-{stamp}")
    if args.publish:
        from evals import design_rows

        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(published(summary), encoding="utf-8")
        design = design_rows.DESIGN.read_text(encoding="utf-8")
        design_rows.DESIGN.write_text(design_rows.update(design, summary), encoding="utf-8")
        paths += [RESULTS, design_rows.DESIGN]
    if args.json:
        sys.stdout.write(summary.model_dump_json(indent=2) + "\n")
    else:
        print_summary(Console(), summary)
    for path in paths:
        progress_console.print(f"written: {path}")
    return exit_code(summary.gates)


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
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="run every case K times and report pass^K (a deterministic model runs once)")
    parser.add_argument("--thresholds", type=Path, default=THRESHOLDS, help="gate file (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the summary JSON on stdout instead of tables")
    parser.add_argument("--publish", action="store_true",
                        help=f"also write the summary to {RESULTS} and refresh DESIGN.md's eval rows from it")
    parser.set_defaults(handler=run_command)
