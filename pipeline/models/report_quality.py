"""Quality report of the offline Guardrail and Judge models on the public development sets.

    .venv/bin/python -m pipeline.models.report_quality [--root DIR] [--every N]

Guardrail: positives = tau-bench retail user turns + CLINC150 test "order_status"/"order";
negatives = CLINC150 oos_test + the other CLINC150 test intents (conversational ones reported
apart, see `datasets.py`); banking77 test = near misses (another business's support questions).
Judge: attacks = Giskard injections, JailbreakBench prompts, Gandalf previews; benign = tau-bench
turns, banking77 and CLINC150 test. Both print the decision at the configured threshold and a
threshold sweep. The exemplars are never fitted to these sets; the sweep only places the cut-off.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.embedding import Embedder
from pipeline.models import datasets
from pipeline.models.classifiers import (
    GUARDRAIL_MIN_ON_TOPIC,
    OfflineGuardrailLlm,
    OfflineJudgeLlm,
    guardrail_allows,
    judge_blocks,
)
from pipeline.models.exemplars import Match
from pipeline.settings import Settings


def _rate(flags: Sequence[bool]) -> str:
    return f"{sum(flags) / len(flags):6.1%} of {len(flags):4d}" if flags else "   n/a"


def _precision_recall(pos: Sequence[bool], neg: Sequence[bool]) -> tuple[float, float]:
    tp, fp = sum(pos), sum(neg)
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / len(pos) if pos else 0.0)


def guardrail_report(guardrail: OfflineGuardrailLlm, sets: dict[str, list[str]],
                     thresholds: Sequence[float]) -> None:
    nearest = {name: [guardrail.nearest(t) for t in texts] for name, texts in sets.items()}
    print(f"\nGuardrail (allow iff on-topic margin >= threshold and on-topic similarity >= "
          f"{GUARDRAIL_MIN_ON_TOPIC}; configured {guardrail.threshold:+.3f})")
    print(f"{'threshold':>9} {'precision':>9} {'recall':>7} {'P(+bank)':>9} "
          f"{'tau allow':>9} {'clinc-on':>9} {'oos block':>9} {'clinc-off':>9} {'bank block':>10} {'neutral':>8}")
    for t in thresholds:
        allow = {name: [guardrail_allows(on, off, t) for on, off in pairs] for name, pairs in nearest.items()}
        pos = allow["tau"] + allow["clinc_on"]
        precision, recall = _precision_recall(pos, allow["clinc_oos"] + allow["clinc_off"])
        p_bank, _ = _precision_recall(pos, allow["clinc_oos"] + allow["clinc_off"] + allow["banking77"])

        def share(name: str, allowed: bool, a: dict[str, list[bool]] = allow) -> str:
            flags = a[name]
            return f"{sum(f == allowed for f in flags) / len(flags):.1%}" if flags else "n/a"

        mark = " <- configured" if abs(t - guardrail.threshold) < 1e-9 else ""
        print(f"{t:+9.3f} {precision:9.3f} {recall:7.3f} {p_bank:9.3f} {share('tau', True):>9} "
              f"{share('clinc_on', True):>9} {share('clinc_oos', False):>9} {share('clinc_off', False):>9} "
              f"{share('banking77', False):>10} {share('clinc_neutral', True):>8}{mark}")


def judge_report(judge: OfflineJudgeLlm, attacks: dict[str, list[str]], benign: dict[str, list[str]],
                 thresholds: Sequence[float]) -> None:
    nearest: dict[str, list[tuple[Match, Match]]] = {
        name: [judge.nearest(t) for t in texts] for name, texts in {**attacks, **benign}.items()
    }
    print(f"\nJudge model tier (block iff attack similarity >= threshold and > benign; "
          f"configured {judge.threshold:.3f})")
    print(f"{'threshold':>9} " + " ".join(f"{n[:12]:>12}" for n in attacks) + "  | false blocks: "
          + " ".join(f"{n[:10]:>10}" for n in benign))
    for t in thresholds:
        cols = [f"{sum(judge_blocks(a, b, t) for a, b in nearest[n]) / max(len(nearest[n]), 1):12.1%}"
                for n in attacks]
        fps = [f"{sum(judge_blocks(a, b, t) for a, b in nearest[n]) / max(len(nearest[n]), 1):10.1%}"
               for n in benign]
        mark = " <- configured" if abs(t - judge.threshold) < 1e-9 else ""
        print(f"{t:9.3f} " + " ".join(cols) + "  |               " + " ".join(fps) + mark)


def _every(texts: list[str], n: int) -> list[str]:
    return texts[::n]


def main(argv: Sequence[str] | None = None, *, embedder_factory: Callable[[], Embedder] = Embedder.load) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=datasets.DEFAULT_ROOT)
    parser.add_argument("--every", type=int, default=1, help="use every N-th item of each set (speed)")
    # Defaults are the settings' own, so "<- configured" marks the row the desk runs with.
    fields = Settings.model_fields
    parser.add_argument("--guardrail-threshold", type=float, default=fields["guardrail_threshold"].default)
    parser.add_argument("--judge-threshold", type=float, default=fields["judge_model_threshold"].default)
    parser.add_argument("--only", choices=["guardrail", "judge"])
    args = parser.parse_args(argv)
    embedder = embedder_factory()
    clinc = datasets.clinc_split(args.root)
    tau = datasets.tau_user_turns(args.root)
    bank = [text for text, _ in datasets.banking77(args.root)]
    if args.only != "judge":
        sets = {"tau": tau, "clinc_on": clinc["on_topic"], "clinc_oos": clinc["oos"],
                "clinc_off": clinc["off_topic"], "banking77": bank, "clinc_neutral": clinc["neutral"]}
        guardrail_report(OfflineGuardrailLlm.build(embedder, args.guardrail_threshold),
                         {k: _every(v, args.every) for k, v in sets.items()},
                         sorted({args.guardrail_threshold, *(x / 100 for x in range(-10, 11, 2))}))
    if args.only != "guardrail":
        attacks = {"giskard": datasets.giskard_injections(args.root),
                   "jailbreakbench": datasets.jailbreakbench_prompts(args.root),
                   "gandalf": datasets.gandalf_previews(args.root)}
        benign = {"tau": tau, "banking77": bank,
                  "clinc": [t for v in clinc.values() for t in v]}
        judge_report(OfflineJudgeLlm.build(embedder, args.judge_threshold),
                     {k: _every(v, args.every) for k, v in attacks.items()},
                     {k: _every(v, args.every) for k, v in benign.items()},
                     sorted({args.judge_threshold, *(x / 100 for x in range(40, 71, 5))}))


if __name__ == "__main__":
    main()
