"""Language models of the desk: offline models, hosted adapters, prompts.

Public API (import from the modules; this package stays import-light):
- `factory.build_llm(settings, role)`: the model of a role ("agent", "guardrail",
  "judge") for `settings.model_name` (`offline`, a Gemini name, `litellm/<provider>/<model>`).
- `prompts.SUPPORT_INSTRUCTION`, `prompts.GUARDRAIL_INSTRUCTION`, `prompts.render_memories`.
- `offline_support.OfflineSupportLlm`, `classifiers.OfflineGuardrailLlm`, `classifiers.OfflineJudgeLlm`:
  the deterministic offline models (data files in `data/`; the guards' trained models and cards in
  `data/guardrail/` and `guards/judge/model/`, built by `supportdesk train`).
- `resilient.ResilientLlm`: timeout, retry, output cap and refusal detection around hosted models.
"""
