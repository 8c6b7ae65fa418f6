"""The browser front end: a Starlette app that logs customers in and streams their turns as NDJSON.

`python -m web` serves it on `settings.web_host:web_port`. It renders what `pipeline` yields and
holds no pipeline logic; sessions and rate limits live in PostgreSQL so every worker shares them.
"""
