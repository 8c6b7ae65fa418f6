from services.common.serve import run
from services.masker.app import build_app

raise SystemExit(run("masker", build_app, lambda settings: (settings.masker_host, settings.masker_port)))
