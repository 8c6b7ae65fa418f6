"""The Guardrail's own parts: its written scope, its code fast paths and its trained model's files.

The step that runs it in a turn (a fresh ADK session per message) is `pipeline/guardrail.py`.
"""
