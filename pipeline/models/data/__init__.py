"""Packaged data files of the offline models (exemplars, intents)."""
