"""Tests of the desk models (offline models, hosted adapters, factory)."""
