"""`supportdesk chat --email E [message]`: talk to the desk as a customer, from this process.

The password comes from SUPPORTDESK_PASSWORD or is asked for (getpass) and is checked against
`users`. Without a message: a REPL (`/trace` prints the last turn's trace link, `/quit` leaves; Ctrl-C
while an answer is coming stops that turn and returns to the prompt).
With one: answer it and exit 0 answered, 2 blocked, 3 capped or refused, 4 a request left
unconfirmed, 1 error. A request to record something (a return, an exchange, …) ends with
`needs_confirmation`: the chat asks `Record this? [y/N]`, and only `y` records it (anything else,
or end of input, records nothing). `--ndjson` prints the raw events.
A customer never sees a stack trace, only the desk's safe messages.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager, suppress
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from cli.render import EXIT_ERROR, EXIT_UNCONFIRMED, TurnView, exit_code, printable
from db.accounts import LOGIN_FAILED, PasswordCheck
from db.connect import connection
from pipeline import FinalEvent, for_customer
from pipeline.core.errors import SupportdeskError
from pipeline.core.settings import Settings, load_settings

if TYPE_CHECKING:
    from pipeline import CustomerSession, Desk

PASSWORD_ENV = "SUPPORTDESK_PASSWORD"
UNEXPECTED = "Something went wrong on our side. Please try again in a moment."
HELP = ("Ask about your orders. /trace prints the last turn's trace link, /quit leaves; "
        "Ctrl-C stops an answer that is taking too long.")
CONFIRM_PROMPT = "Record this? [y/N] "
STOPPED = "Stopped: that question was not answered. Ask again whenever you like."


def register(subparsers: Any) -> None:
    """Add `chat` to the `supportdesk` command's subparsers."""
    parser = subparsers.add_parser("chat", help="chat with the desk as a customer (REPL, or one message)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--email", required=True, help="the customer's login email")
    parser.add_argument("--ndjson", action="store_true", help="print the raw events, one JSON object per line")
    parser.add_argument("--verbose", action="store_true", help="show the desk's internal log on stderr")
    parser.add_argument("message", nargs="?", help="answer this one message and exit")
    parser.set_defaults(handler=run_chat)


def run_chat(args: argparse.Namespace) -> int:
    # Libraries log their own warnings; a customer's terminal shows them only when asked to.
    if args.verbose:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    else:
        logging.getLogger().addHandler(logging.NullHandler())
    out, err = Console(), Console(stderr=True)
    try:
        settings = load_settings()
        password = os.environ.get(PASSWORD_ENV) or _ask_password()
        return asyncio.run(_chat(args, settings, password, out, err))
    except SupportdeskError as exc:  # ConfigError included: its message lists what to set
        err.print(Text(exc.user_message, style="red"))
    except KeyboardInterrupt:
        return 130
    except Exception:  # the last line of defence: no stack trace reaches the customer
        logging.getLogger(__name__).exception("supportdesk chat failed")
        err.print(Text(UNEXPECTED, style="red"))
    return EXIT_ERROR


def _ask_password() -> str:
    if not sys.stdin.isatty():
        raise SupportdeskError("no password", user_message=f"Set {PASSWORD_ENV} or run in a terminal to be asked.")
    return getpass.getpass("Password: ")


async def _chat(args: argparse.Namespace, settings: Settings, password: str, out: Console, err: Console) -> int:
    async with connection(settings) as conn:
        account = await PasswordCheck().verify(conn, args.email, password)  # verify normalises it
    if account is None:
        err.print(Text(LOGIN_FAILED, style="red"))
        return EXIT_ERROR
    # The turn engine (ADK, models) loads only when a chat starts: the other `supportdesk`
    # commands share this parser and must not pay for it.
    from pipeline import CustomerSession, Desk

    with err.status("Connecting to the desk…"):
        pipeline = await Desk.build(settings)
    try:
        session = CustomerSession(account.email)
        if args.message is not None:
            view = await _turn(pipeline, session, args.message, out, ndjson=args.ndjson)
            if not _awaits_yes(view):
                return exit_code(view.end)
            settled, confirmed = await _confirm(pipeline, session, view, out, ndjson=args.ndjson)
            return exit_code(settled.end) if confirmed else EXIT_UNCONFIRMED
        out.print(Text(f"Logged in as {printable(account.full_name)} <{account.email}>. {HELP}"))
        return await _repl(pipeline, session, settings, out, ndjson=args.ndjson)
    finally:
        await pipeline.aclose()


async def _turn(pipeline: Desk, session: CustomerSession, text: str, out: Console, *, ndjson: bool,
                pending: str | None = None) -> TurnView:
    view = TurnView()
    events = pipeline.run_turn(session, text, pending)
    if ndjson:
        async for event in events:
            view.apply(event)
            print(for_customer(event).model_dump_json(), flush=True)
        return view
    with Live(view, console=out, refresh_per_second=12, transient=False) as live:
        async for event in events:
            view.apply(event)
            live.refresh()
    return view


async def _repl(pipeline: Desk, session: CustomerSession, settings: Settings, out: Console, *,
                ndjson: bool) -> int:
    last: TurnView | None = None
    while True:
        try:
            text = (await _read_line(out, "[bold cyan]you›[/] ")).strip()
        except EOFError:
            return 0
        if text == "/quit":
            return 0
        if text == "/trace":
            out.print(_trace_line(last, settings))
        elif text.startswith("/"):
            out.print(Text(HELP))
        elif text:
            view = await _stoppable(_turn(pipeline, session, text, out, ndjson=ndjson), out)
            if view is not None and _awaits_yes(view):
                view = await _stoppable(_settled(pipeline, session, view, out, ndjson=ndjson), out)
            last = view if view is not None else last


async def _confirm(pipeline: Desk, session: CustomerSession, view: TurnView, out: Console, *,
                   ndjson: bool) -> tuple[TurnView, bool]:
    """After `needs_confirmation`: ask, and send the desk "yes" (only for y) or "no" with the
    signed token; the turn that answered it, and whether the customer confirmed."""
    end = view.end
    assert isinstance(end, FinalEvent) and end.pending is not None
    try:
        # With --ndjson stdout carries only events: the question goes to stderr.
        asking = Console(stderr=True) if ndjson else out
        reply = (await _read_line(asking, escape(CONFIRM_PROMPT))).strip().casefold()
    except EOFError:
        reply = ""
    confirmed = reply in ("y", "yes")
    settled = await _turn(pipeline, session, "yes" if confirmed else "no", out, ndjson=ndjson,
                          pending=end.pending.token)
    return settled, confirmed


async def _settled(pipeline: Desk, session: CustomerSession, view: TurnView, out: Console, *,
                   ndjson: bool) -> TurnView:
    return (await _confirm(pipeline, session, view, out, ndjson=ndjson))[0]


def _awaits_yes(view: TurnView) -> bool:
    return isinstance(view.end, FinalEvent) and view.end.pending is not None


async def _read_line(out: Console, prompt: str) -> str:
    """`out.input(prompt)` on a daemon thread: input() blocks, and the event loop's background work
    must go on. Not `asyncio.to_thread`: asyncio.run joins its worker threads on the way out, so
    Ctrl-C at the prompt would hang until Enter; a daemon thread ends with the process. Ctrl-C while
    it waits raises KeyboardInterrupt here (`_on_ctrl_c`), which leaves the chat."""
    loop = asyncio.get_running_loop()
    line: asyncio.Future[str] = loop.create_future()

    def settle(outcome: Callable[[], None]) -> None:
        if not line.done():
            outcome()

    def read() -> None:
        try:
            text = out.input(prompt)
        except BaseException as exc:  # EOFError (Ctrl-D) included: the prompt's caller decides
            done = partial(settle, partial(line.set_exception, exc))
        else:
            done = partial(settle, partial(line.set_result, text))
        with suppress(RuntimeError):  # the loop already closed: the chat has ended
            loop.call_soon_threadsafe(done)

    with _on_ctrl_c(settle, partial(line.set_exception, KeyboardInterrupt())):
        threading.Thread(target=read, name="chat-input", daemon=True).start()
        return await line


async def _stoppable(turn: Coroutine[Any, Any, TurnView], out: Console) -> TurnView | None:
    """Run one turn; Ctrl-C while it runs cancels it (the run log records it as cancelled) and
    returns None instead of ending the whole chat. At the prompt Ctrl-C still leaves (`_read_line`)."""
    task = asyncio.ensure_future(turn)
    try:
        with _on_ctrl_c(task.cancel):
            return await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise  # the chat itself is being stopped, not just this turn
        out.print(Text(STOPPED, style="yellow"))
        return None


@contextmanager
def _on_ctrl_c(callback: Callable[..., object], *args: object) -> Iterator[None]:
    """While the block runs, Ctrl-C calls `callback(*args)` on the event loop; then the handler from
    before (asyncio.run's) is back. The loop's own handler, not a plain one: the kernel may hand the
    SIGINT to any of the process's threads (the database pool's, the prompt's reader), and only the
    loop's wake-up fd then wakes the main thread from its selector. asyncio.run's handler has none,
    so Ctrl-C at the prompt sometimes did nothing."""
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)
    loop.add_signal_handler(signal.SIGINT, callback, *args)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous)


def _trace_line(last: TurnView | None, settings: Settings) -> Text:
    if last is None or last.turn is None:
        return Text("No turn yet.")
    from pipeline import trace_url

    line = Text(trace_url(settings, last.turn.trace_id))
    if not settings.tracing_enabled:
        line.append("  (tracing is off: Phoenix has no spans for this turn)", style="dim")
    return line
