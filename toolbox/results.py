"""Turn the Toolbox's result text into rows, and its error text into an error.

The Toolbox answers zero rows with the string "null", one row with a JSON object, several with a
JSON array; SQL errors come back as ordinary result text (the client ignores MCP `isError`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from pipeline.core.errors import ToolResultError


class ToolResult(BaseModel):
    rows: list[dict[str, Any]]

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def for_model(self) -> dict[str, Any]:
        return {"rows": self.rows, "row_count": self.row_count}


def parse_result(tool: str, text: str) -> ToolResult:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise ToolResultError(f"{tool} returned a non-JSON result: {str(text)[:300]}") from None
    if value is None:
        return ToolResult(rows=[])
    if isinstance(value, dict):
        return ToolResult(rows=[value])
    if isinstance(value, list) and all(isinstance(row, dict) for row in value):
        return ToolResult(rows=value)
    raise ToolResultError(f"{tool} returned an unexpected result shape: {str(text)[:300]}")
