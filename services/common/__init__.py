"""Plumbing shared by the guard services: app builder, agent card, request handler, middleware."""

from services.common.app import build_guard_app
from services.common.card import GuardSpec
from services.common.handler import Decide

__all__ = ["Decide", "GuardSpec", "build_guard_app"]
