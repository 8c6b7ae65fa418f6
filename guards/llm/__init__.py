"""Model access shared by the Judge service and the desk: hosted providers (Gemini, LiteLLM) behind
one resilient wrapper, and the helpers every offline model answers with."""
