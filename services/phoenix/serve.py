"""`phoenix serve` with its OTLP gRPC receiver off. Runs in `.venv-phoenix` (`python -I serve.py`).

Phoenix 20 binds gRPC (4317) on every interface whatever `PHOENIX_HOST` says, and offers no
switch to turn it off short of read-only mode. The desk exports over OTLP/HTTP only, so the
receiver is switched off here: Phoenix then listens on its HTTP port alone, on `PHOENIX_HOST`.
"""

import sys

from phoenix.server import app, grpc_server
from phoenix.server.main import main


class _NoGrpcServer(grpc_server.GrpcServer):  # type: ignore[misc]
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **{**kwargs, "disabled": True})


if __name__ == "__main__":
    # app.py imported the class by name: replacing it there is what its lifespan then builds.
    app.GrpcServer = _NoGrpcServer
    sys.argv = ["phoenix", "serve"]
    main()
