"""An embedded PostgreSQL 16 (with pgvector) from the `pgserver` wheel, listening on loopback TCP.

pgserver's own API only listens on a Unix socket, but the Toolbox binary needs TCP, so we drive
the bundled `initdb`/`pg_ctl` ourselves. PostgreSQL refuses to run as root; as root we run it as
the unprivileged system user that pgserver also uses.

The application role is not a superuser. The cluster's bootstrap superuser gets a random password
that is never stored, so nobody can log in as it over TCP; the few things only a superuser may do
(create the application role and its database, create the `vector` extension, which pgvector does
not mark trusted) happen once, at `initdb` time, in single-user mode, which needs no login. The
application role is LOGIN CREATEROLE (it manages the reader and writer roles, `db/roles.py`) and
owns the desk's database; it has no SUPERUSER, CREATEDB, REPLICATION or BYPASSRLS.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import warnings
from pathlib import Path
from typing import IO

with warnings.catch_warnings():
    # pgserver asks platformdirs for a runtime folder at import; we never use it.
    warnings.simplefilter("ignore")
    from pgserver._commands import POSTGRES_BIN_PATH

from pipeline.core.errors import DatabaseError
from pipeline.core.settings import Settings

SYSTEM_USER = "pgserver"
#: The cluster's superuser: owns the catalogs, has a password nobody knows, never logs in.
BOOTSTRAP_SUPERUSER = "supportdesk_bootstrap"
START_TIMEOUT_S = 30


def _run_as_owner(args: list[str], *, timeout: float = START_TIMEOUT_S, stdin: IO[str] | None = None) -> str:
    """Run a bundled PostgreSQL program as the data folder's owner; returns its stdout and stderr."""
    user = SYSTEM_USER if os.geteuid() == 0 else None
    try:
        done = subprocess.run(args, user=user, check=True, capture_output=True, text=True, timeout=timeout,
                              stdin=stdin)
    except subprocess.CalledProcessError as exc:
        raise DatabaseError(f"{Path(args[0]).name} failed: {exc.stderr.strip()[-2000:]}") from exc
    except subprocess.TimeoutExpired as exc:
        raise DatabaseError(f"{Path(args[0]).name} timed out after {timeout}s") from exc
    return done.stdout + done.stderr


class EmbeddedPostgres:
    """One data folder, one server process on 127.0.0.1:<postgres_port>."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pgdata = settings.embedded_pg_dir.resolve()
        self.logfile = self.pgdata.parent / "postgres.log"

    @property
    def initialised(self) -> bool:
        return (self.pgdata / "PG_VERSION").exists()

    def _prepare_owner(self) -> None:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            return
        from pgserver.utils import ensure_prefix_permissions, ensure_user_exists

        entry = ensure_user_exists(SYSTEM_USER)
        assert entry is not None
        ensure_prefix_permissions(self.pgdata)
        for path in (self.pgdata, self.logfile.parent):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        self.pgdata.chmod(0o700)
        if not self.logfile.exists():
            self.logfile.touch()
        os.chown(self.logfile, entry.pw_uid, entry.pw_gid)

    def init(self) -> None:
        """Create the cluster once, with the application role and database (module docstring)."""
        self._prepare_owner()
        if self.initialised:
            return
        app, database = self.settings.postgres_user, self.settings.postgres_db
        if app == BOOTSTRAP_SUPERUSER:
            raise DatabaseError(f"POSTGRES_USER may not be {BOOTSTRAP_SUPERUSER}: that name is the cluster's own")
        # mkstemp: a 0600 file; the password is thrown away with it.
        with tempfile.NamedTemporaryFile("w", delete=False, dir=self.pgdata.parent, suffix=".pw") as pw:
            pw.write(secrets.token_urlsafe(32))
        pwfile = Path(pw.name)
        try:
            if os.geteuid() == 0:
                shutil.chown(pwfile, SYSTEM_USER)
            _run_as_owner([
                str(POSTGRES_BIN_PATH / "initdb"), "-D", str(self.pgdata), "-U", BOOTSTRAP_SUPERUSER,
                f"--pwfile={pwfile}", "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8",
            ], timeout=120)
        finally:
            pwfile.unlink(missing_ok=True)
        password = self.settings.postgres_password.get_secret_value()
        self._single_user("postgres", f"CREATE ROLE {_ident(app)} LOGIN CREATEROLE PASSWORD {_literal(password)}",
                          f"CREATE DATABASE {_ident(database)} OWNER {_ident(app)}")
        self._single_user(database, "CREATE EXTENSION IF NOT EXISTS vector")

    def _single_user(self, database: str, *statements: str) -> None:
        """Run `statements` as the bootstrap superuser with the server stopped (no login, no port).

        They reach the server through a private temporary file on its stdin, and are never logged
        (one holds a password); any ERROR fails the set up.
        """
        with tempfile.TemporaryFile("w+", dir=self.pgdata.parent) as script:
            script.write("".join(f"{statement.replace(chr(10), ' ')};\n" for statement in statements))
            script.seek(0)
            output = _run_as_owner([
                str(POSTGRES_BIN_PATH / "postgres"), "--single", "-D", str(self.pgdata),
                "-c", "log_min_error_statement=panic", "-c", "log_statement=none", database,
            ], stdin=script)
        errors = [line.split("ERROR:", 1)[1].strip() for line in output.splitlines() if "ERROR:" in line]
        if errors:
            raise DatabaseError(f"setting up the embedded database failed: {errors[0][:500]}")

    def running(self) -> bool:
        status = subprocess.run(
            [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), "status"],
            user=SYSTEM_USER if os.geteuid() == 0 else None, capture_output=True, text=True,
        )
        return status.returncode == 0

    def start(self) -> None:
        self.init()
        if self.running():
            return
        self._require_free_port()
        options = (
            f"-h 127.0.0.1 -p {self.settings.postgres_port} -c unix_socket_directories='' "
            "-c max_connections=200 -c fsync=on"
        )
        _run_as_owner([
            str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), "-l", str(self.logfile),
            "-o", options, "-w", "-t", str(START_TIMEOUT_S), "start",
        ], timeout=START_TIMEOUT_S + 5)

    def _require_free_port(self) -> None:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", self.settings.postgres_port))
            except OSError:
                raise DatabaseError(
                    f"port {self.settings.postgres_port} is already in use (another PostgreSQL?): set "
                    "POSTGRES_PORT to a free port for the embedded server, or POSTGRES_HOST to use that server"
                ) from None

    def stop(self) -> None:
        if self.initialised and self.running():
            _run_as_owner([str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "-w", "stop"])


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    # standard_conforming_strings is on (the default): only the quote needs doubling.
    return "'" + value.replace("'", "''") + "'"
