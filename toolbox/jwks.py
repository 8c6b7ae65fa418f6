"""The desk's public key where the Toolbox reads it: a loopback-only OIDC discovery + JWKS endpoint.

Toolbox 1.15's `generic` auth service fetches `<authorizationServer>/.well-known/openid-configuration`
once at start (it exits if that fails), then the `jwks_uri` it names, and again later only to
refresh (hourly, or for an unknown key id). So this server must be up before the Toolbox starts and
stay up while it runs; `ToolboxServer` owns both. It serves public keys only, on 127.0.0.1, from a
thread of the process that starts the Toolbox. The port is fixed (`toolbox_jwks_port`) because the
Toolbox requires each token's `iss` to equal this URL, and the pipeline that signs is another
process; if something else holds the port, binding fails and the Toolbox does not start.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DISCOVERY_PATH = "/.well-known/openid-configuration"
JWKS_PATH = "/jwks.json"


def issuer_url(port: int) -> str:
    """The `authorizationServer` in tools.yaml and the `iss` of every desk token."""
    return f"http://127.0.0.1:{port}"


class JwksServer:
    def __init__(self, jwks: dict[str, Any], *, port: int) -> None:
        self._jwks = json.dumps(jwks).encode()
        self.port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return issuer_url(self.port)

    def start(self) -> str:
        """Bind 127.0.0.1:`port` and serve in a daemon thread; returns the issuer URL."""
        server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="toolbox-jwks", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(5.0)
        self._server = self._thread = None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        jwks = self._jwks
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # http.server's naming
                if self.path == DISCOVERY_PATH:
                    base = owner.url
                    body = json.dumps({"issuer": base, "jwks_uri": base + JWKS_PATH}).encode()
                elif self.path == JWKS_PATH:
                    body = jwks
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # two requests per Toolbox start; nothing worth a log line

        return Handler
