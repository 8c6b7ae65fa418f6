"""The ADK support agent: Toolbox tools as ADK tools, and the long-lived runner."""
