from services.common.serve import run
from services.judge.app import build_app, build_engine

raise SystemExit(run(
    "judge",
    lambda settings: build_app(settings, build_engine(settings)),
    lambda settings: (settings.judge_host, settings.judge_port),
))
