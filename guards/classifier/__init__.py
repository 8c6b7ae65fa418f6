"""The trained guard classifiers shared by the Judge and the Guardrail.

- `features`: sentence embeddings (multilingual-e5-small or MiniLM) + hashed character n-grams;
- `logreg`: L2-regularised logistic regression in numpy (deterministic full-batch Adam);
- `artefact`: the committed model files, pinned by SHA-256, and `Classifier` that scores text;
- `data` / `train` / `evaluate` / `card`: `supportdesk train judge|guardrail`;
- `splits`: the dev/test split of the desk's case files.
"""
