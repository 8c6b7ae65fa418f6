"""`supportdesk train judge|judge-long|guardrail|all`: rebuild the guard models and their cards."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, get_args

from guards.classifier import datasets, long_training
from guards.classifier.data import Guard
from guards.classifier.embedders import Design
from guards.classifier.logreg import FitParams
from guards.classifier.train import DESIGNS, Options, run


def _designs(value: str) -> tuple[Design | None, ...]:
    names = {"ngram": None, **{d: d for d in get_args(Design)}}
    try:
        return tuple(names[v] for v in value.split(","))  # type: ignore[misc]
    except KeyError as exc:
        raise argparse.ArgumentTypeError(f"unknown design {exc}; choose from {sorted(names)}") from exc


def _train(args: argparse.Namespace) -> int:
    from guards.classifier.offline_llm import GUARDRAIL_MODEL_DIR, JUDGE_MODEL_DIR

    out = {"judge": JUDGE_MODEL_DIR, "guardrail": GUARDRAIL_MODEL_DIR}
    cache_dir = None if args.no_cache else Options().cache_dir
    guards = [g for g in get_args(Guard) if args.guard in (g, "all")]
    for guard in guards:
        options = Options(root=args.root, cache_dir=cache_dir,
                          out_dir=args.out or out[guard], sample=args.sample, designs=args.designs,
                          params=FitParams(dense_scale=args.dense_scale, hidden=args.hidden))
        run(guard, options)
    if args.guard in ("judge-long", "all"):  # after the Judge: it reads the Judge's training texts
        long_training.run(args.out or JUDGE_MODEL_DIR, args.root, cache_dir, args.sample)
    return 0


def register(commands: Any) -> None:
    parser = commands.add_parser("train", help="train the Judge and/or Guardrail classifier and write its card")
    parser.add_argument("guard", choices=["judge", "judge-long", "guardrail", "all"],
                        help="judge-long: the Judge's reader of messages longer than its model reads at once")
    parser.add_argument("--root", type=Path, default=datasets.DEFAULT_ROOT, help="the public data sets")
    parser.add_argument("--sample", type=int, default=None, help="at most N texts per source (a quick build)")
    parser.add_argument("--designs", type=_designs, default=DESIGNS,
                        help="embedder designs to compare, comma-separated (e5, minilm, ngram); the "
                             "guard's chosen design is written")
    parser.add_argument("--hidden", type=int, default=FitParams.hidden,
                        help="hidden units of an MLP head over the embedding (0 = logistic regression)")
    parser.add_argument("--dense-scale", type=float, default=FitParams.dense_scale,
                        help="weight of the embedding columns against the n-grams under one L2 penalty")
    parser.add_argument("--out", type=Path, default=None, help="folder for the model files (default: the guard's)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write .supportdesk/ embeddings")
    parser.set_defaults(handler=_train)
