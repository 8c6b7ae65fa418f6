"""Test-wide fixtures: each package contributes its own real-service fixtures as a plugin."""

pytest_plugins = [
    "db.tests.fixtures",
    "toolbox.tests.fixtures",
    "services.tests.fixtures",
    "pipeline.embedding.tests.fixtures",
    "pipeline.tests.fixtures",
    "web.tests.fixtures",
]
