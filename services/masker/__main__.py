from pipeline.core.settings import load_settings
from services.common.serve import run
from services.masker.app import build_app

raise SystemExit(run("masker", lambda: load_settings(process="masker"), build_app,
                     lambda settings: (settings.masker_host, settings.masker_port)))
