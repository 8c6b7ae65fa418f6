"""`python -m web`: serve the chat on settings.web_host:web_port (reads the settings once)."""

from __future__ import annotations

import asyncio
import sys

import uvicorn

from pipeline import ConfigError, Settings, SupportdeskError, load_settings
from web.app import create_app
from web.resources import open_resources


async def serve(settings: Settings) -> None:
    async with open_resources(settings) as desk:
        config = uvicorn.Config(create_app(desk), host=settings.web_host, port=settings.web_port,
                                proxy_headers=True, lifespan="off", log_level="info")
        await uvicorn.Server(config).serve()


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"supportdesk web: {exc.user_message}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(settings))
    except SupportdeskError as exc:
        # The operator's terminal: the internal detail helps them fix the dependency.
        print(f"supportdesk web: cannot start: {exc.detail}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
