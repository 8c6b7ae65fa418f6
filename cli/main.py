"""`supportdesk`: the desk's one console script (up, db migrate, db seed, chat, eval, train)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from rich.console import Console

from cli import chat
from evals import runner
from guards.classifier import cli as train_cli
from pipeline.core.errors import SupportdeskError
from pipeline.core.settings import load_settings

console = Console(stderr=True)


def _db_migrate(_: argparse.Namespace) -> int:
    from db.connect import ensure_database
    from db.embedded import EmbeddedPostgres
    from db.migrate import apply_migrations
    from db.roles import provision_roles

    settings = load_settings()
    if settings.embedded_postgres:
        EmbeddedPostgres(settings).start()
    asyncio.run(ensure_database(settings))
    applied = apply_migrations(settings)
    asyncio.run(provision_roles(settings))
    console.print(f"migrations applied: {', '.join(applied) or 'none (already current)'}; roles verified")
    return 0


def _db_seed(_: argparse.Namespace) -> int:
    from db.seed import seed

    summary = asyncio.run(seed(load_settings()))
    console.print(f"seeded {len(summary.customers)} customers and {summary.orders} orders (idempotent)")
    return 0


def _up(_: argparse.Namespace) -> int:
    from cli.up import run_up

    return run_up(console)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="supportdesk", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("up", help="set up and run the whole desk in the foreground").set_defaults(handler=_up)
    db = commands.add_parser("db", help="database tasks").add_subparsers(dest="db_command", required=True)
    db.add_parser("migrate", help="apply migrations and converge roles").set_defaults(handler=_db_migrate)
    db.add_parser("seed", help="load the demo customers and orders").set_defaults(handler=_db_seed)
    chat.register(commands)
    runner.register(commands)
    train_cli.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except SupportdeskError as exc:
        # Operators get the internal detail here: this is their own terminal, not a customer's.
        console.print(f"[bold red]supportdesk:[/] {exc.detail}")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
