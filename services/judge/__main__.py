from pipeline.core.settings import load_settings
from services.common.serve import run
from services.judge.app import build_app, build_engine

raise SystemExit(run(
    "judge",
    lambda: load_settings(process="judge"),
    lambda settings: build_app(settings, *build_engine(settings)),
    lambda settings: (settings.judge_host, settings.judge_port),
))
