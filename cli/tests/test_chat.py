"""`supportdesk chat`, the real console script in a subprocess: one-shot exit codes, NDJSON, the REPL on a pty."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli.chat import STOPPED
from cli.render import EXIT_CODES, exit_code
from cli.tests.terminal import Terminal
from db.accounts import LOGIN_FAILED
from evals.harness import free_port
from pipeline import ErrorEvent, FinalEvent, Usage, parse_event
from services.launch import service_environment

SPEC = yaml.safe_load((Path(__file__).parent / "cases" / "chat_oneshot.yaml").read_text(encoding="utf-8"))
CUSTOMER = SPEC["customer"]
SUPPORTDESK = str(Path(sys.executable).with_name("supportdesk"))


@pytest.fixture(scope="module")
async def own_order(desk_settings: Any) -> str:
    from db.connect import connection

    async with connection(desk_settings) as conn:
        order_id: str = await conn.fetchval(
            "SELECT order_id FROM customer_orders WHERE customer_email = $1 ORDER BY order_id LIMIT 1", CUSTOMER)
    return order_id


@pytest.fixture()
def chat_env(desk_settings: Any, toolbox_server: Any, judge_service: Any, masker_service: Any,
             demo_password: str) -> dict[str, str]:
    env = service_environment(desk_settings, os.environ)
    env.update({"SUPPORTDESK_PASSWORD": demo_password, "COLUMNS": "160", "TERM": "xterm-256color"})
    return env


def _fill(text: str, own: str) -> str:
    return text.replace("{own}", own).replace("{free_port}", str(free_port()))


@pytest.mark.parametrize("case", SPEC["cases"], ids=[c["id"] for c in SPEC["cases"]])
def test_one_shot(case: dict[str, Any], chat_env: dict[str, str], own_order: str, tmp_path: Path) -> None:
    env = {**chat_env, **{key: _fill(value, own_order) for key, value in case.get("env", {}).items()}}
    if "password" in case:
        env["SUPPORTDESK_PASSWORD"] = case["password"]
    argv = [SUPPORTDESK, "chat", "--email", CUSTOMER, *(["--ndjson"] if case.get("ndjson") else []),
            _fill(case["message"], own_order)]
    done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == case["exit"], (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr
    for text in case.get("stdout_has", []):
        assert _fill(text, own_order) in done.stdout
    for text in case.get("stderr_has", []):
        assert text in done.stderr
    if case.get("ndjson"):
        events = [parse_event(line) for line in done.stdout.splitlines()]
        assert [e.seq for e in events] == list(range(len(events)))
        assert [e for e in events if e.terminal] == [events[-1]]
        ended = events[-1].model_dump(mode="json")
        assert {key: ended[key] for key in case["final"]} == case["final"]


@pytest.mark.parametrize("status", [*EXIT_CODES, "error"])
def test_exit_code_per_outcome(status: str) -> None:
    common = {"turn_id": "t", "seq": 1, "t_ms": 1.0, "latency_ms": 1.0}
    end: FinalEvent | ErrorEvent = (
        ErrorEvent(stage="judge", code=503, message="down", **common) if status == "error"
        else FinalEvent(status=status, answer="a", usage=Usage(), **common))  # type: ignore[arg-type]
    assert exit_code(end) == {"answered": 0, "blocked": 2, "capped": 3, "refused": 3, "needs_confirmation": 4,
                              "error": 1}[status]


def _repl(env: dict[str, str], cwd: Path) -> Terminal:
    return Terminal([SUPPORTDESK, "chat", "--email", CUSTOMER], env, str(cwd))


def test_repl_on_a_terminal(chat_env: dict[str, str], desk_settings: Any, own_order: str, demo_password: str,
                            tmp_path: Path) -> None:
    env = {key: value for key, value in chat_env.items() if key != "SUPPORTDESK_PASSWORD"}
    terminal = _repl(env, tmp_path)
    try:
        terminal.expect(r"Password:")
        terminal.send(demo_password)  # getpass: typed on the terminal, not echoed
        terminal.expect(r"you›", timeout_s=120)
        assert demo_password not in terminal.screen
        terminal.send("/trace")
        terminal.expect(r"No turn yet")
        terminal.send(f"What's the status of {own_order}?")
        terminal.expect(rf"(?s)get-order-status\(order_id={own_order}\).*answered.*you›", timeout_s=60)
        terminal.send("/trace")
        trace_id = terminal.expect(r"/redirects/traces/([0-9a-f]{32})").group(1)
        terminal.send("/quit")
        code = terminal.wait()
    except BaseException:
        terminal.kill()
        raise
    (tmp_path / "terminal.txt").write_text(terminal.screen, encoding="utf-8")  # what the customer saw
    assert code == 0
    assert "Traceback" not in terminal.screen
    logged = [json.loads(p.read_text()) for p in desk_settings.runs_dir.glob("*.json")]
    assert any(r["trace_id"] == trace_id and r["customer_email"] == CUSTOMER for r in logged)


def test_ctrl_c_stops_a_slow_answer_and_the_chat_goes_on(chat_env: dict[str, str], desk_settings: Any,
                                                         own_order: str, tmp_path: Path) -> None:
    # A Judge that takes the connection and never answers: the turn waits on it until Ctrl-C.
    with socket.create_server(("127.0.0.1", 0)) as silent_judge:
        env = {**chat_env, "JUDGE_HOST": "127.0.0.1", "JUDGE_PORT": str(silent_judge.getsockname()[1]),
               "JUDGE_TIMEOUT_S": "120"}
        terminal = _repl(env, tmp_path)
        try:
            terminal.expect(r"you›", timeout_s=120)
            terminal.send(f"What's the status of {own_order}?")
            terminal.expect(r"judge\s+running", timeout_s=60)
            terminal.interrupt()
            terminal.expect(rf"(?s){STOPPED[:20]}.*you›", timeout_s=30)
            terminal.send("/quit")
            code = terminal.wait()
        except BaseException:
            terminal.kill()
            raise
    assert code == 0
    assert "Traceback" not in terminal.screen
    logged = [json.loads(p.read_text()) for p in desk_settings.runs_dir.glob("*.json")]
    assert any(r["customer_email"] == CUSTOMER and r["outcome"].get("cancelled") and r["outcome"]["stage"] == "judge"
               for r in logged)


def test_ctrl_c_at_the_prompt_leaves(chat_env: dict[str, str], own_order: str, tmp_path: Path) -> None:
    terminal = _repl(chat_env, tmp_path)
    try:
        terminal.expect(r"you›", timeout_s=120)
        terminal.send(f"What's the status of {own_order}?")  # a turn first: its Ctrl-C handling is undone
        terminal.expect(r"(?s)answered.*you›", timeout_s=60)
        terminal.interrupt()
        code = terminal.wait(timeout_s=30)
    except BaseException:
        terminal.kill()
        raise
    assert code == 130
    assert "Traceback" not in terminal.screen


def test_repl_wrong_password_on_a_terminal(chat_env: dict[str, str], tmp_path: Path) -> None:
    env = {key: value for key, value in chat_env.items() if key != "SUPPORTDESK_PASSWORD"}
    terminal = _repl(env, tmp_path)
    try:
        terminal.expect(r"Password:")
        terminal.send("certainly-wrong")
        terminal.expect(LOGIN_FAILED.split(" an ")[0])
        code = terminal.wait()
    except BaseException:
        terminal.kill()
        raise
    assert code == 1


@pytest.mark.parametrize(("reply", "ndjson", "exit_status", "rows"), [
    ("y\n", False, 0, 1), ("n\n", False, EXIT_CODES["needs_confirmation"], 0),
    ("", False, EXIT_CODES["needs_confirmation"], 0), ("y\n", True, 0, 1),
], ids=["y-records", "n-records-nothing", "end-of-input-records-nothing", "ndjson-y"])
def test_one_shot_request_asks_before_recording(chat_env: dict[str, str], desk_settings: Any, shop_customer: Any,
                                                tmp_path: Path, reply: str, ndjson: bool, exit_status: int,
                                                rows: int) -> None:
    order_id = shop_customer.orders["delivered"]
    argv = [SUPPORTDESK, "chat", "--email", shop_customer.email, *(["--ndjson"] if ndjson else []),
            f"Please return order {order_id}."]
    done = subprocess.run(argv, env=chat_env, cwd=tmp_path, capture_output=True, text=True, timeout=180,
                          input=reply, check=False)
    assert done.returncode == exit_status, (done.stdout, done.stderr)
    assert "Record this? [y/N]" in (done.stderr if ndjson else done.stdout)
    if ndjson:
        finals = [e for e in map(parse_event, done.stdout.splitlines()) if isinstance(e, FinalEvent)]
        assert [f.status for f in finals] == ["needs_confirmation", "answered"]
        assert finals[0].pending is not None and finals[0].pending.order_id == order_id

    import asyncio

    from db.connect import connection

    async def count() -> int:
        async with connection(desk_settings) as conn:
            return int(await conn.fetchval("SELECT count(*) FROM actions_log WHERE order_id = $1", order_id))
    assert asyncio.run(count()) == rows
