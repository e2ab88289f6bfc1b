"""The printed report of ``make bench-qc-real`` (markdown tables, as in the README)."""

from __future__ import annotations

from typing import Any

from bench.qc_real_grid import GRID_KEYS

_CUTS = (("shared_template_min_images", "consensus_threshold"),
         ("near_template_words", "near_template_consensus", "near_template_min_images"),
         ("quality_talk_consensus",))


def _curve_table(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> list[str]:
    lines = ["| " + " | ".join(keys) + " | tune recall | tune false flags | held-out recall | held-out false flags |",
             "|" + "---:|" * (len(keys) + 4)]
    return lines + ["| " + " | ".join(f"{row[k]:g}" for k in keys) + f" | {row['tune_recall']:.1%} "
                    f"| {row['tune_false']:.2%} | {row['heldout_recall']:.1%} | {row['heldout_false']:.2%} |"
                    for row in rows]


def _cuts(curve: list[dict[str, Any]], chosen: dict[str, Any]) -> list[str]:
    """One table per swept rule: its values, the other rules at the chosen point (0 = off)."""
    lines: list[str] = []
    for keys in _CUTS:
        fixed = [k for k in GRID_KEYS if k not in keys]
        lines += ["", *_curve_table([row for row in curve if all(row[k] == chosen[k] for k in fixed)], keys)]
    return lines


def _interval(found: dict[str, Any]) -> str:
    (r_lo, r_hi), (f_lo, f_hi) = found["recall_ci"], found["false_ci"]
    return (f"recall {found['recall']:.1%} (95% CI {r_lo:.1%}-{r_hi:.1%}), false flags {found['false']:.2%} "
            f"(95% CI {f_lo:.2%}-{f_hi:.2%}); both targets met in {found['meets_target']:.0%} of the resamples")


def report(result: dict[str, Any], params: dict[str, Any]) -> str:
    chosen = result["chosen"]
    at_config = all(abs(float(params[k]) - float(chosen[k])) < 1e-9 for k in GRID_KEYS)
    lines = [f"config thresholds: {', '.join(f'{k} {params[k]:g}' for k in GRID_KEYS)}",
             f"counted (any flag but the random sample): {', '.join(result['sets']['evidence'])}",
             f"caption-level rules of [policy]: {', '.join(result['sets']['caption'])}",
             f"consensus skips: {result['consensus_skipped']}",
             f"tuning half at the config's thresholds: recall {result['tune'][0]:.1%}, "
             f"false flags {result['tune'][1]:.2%}",
             "held-out half, config thresholds (only = accepted captions no other counted rule flags):",
             "| rule | recall (rejected flagged) | false flags (accepted flagged) | false flags, this rule only |",
             "|---|---:|---:|---:|"]
    lines += [f"| {rule} | {r:.1%} | {f:.2%} | {'' if o != o else f'{o:.2%}'} |"
              for rule, (r, f, o) in result["table"].items()]
    lines += ["", "any flag, held-out half, cluster bootstrap over images: " + _interval(result["config_interval"]),
              "chosen on the tuning half (most room for both targets in standard errors, then fewest false flags): "
              f"{ {k: round(v, 4) if isinstance(v, float) else v for k, v in chosen.items()} }",
              "the config's thresholds ARE the chosen point" if at_config
              else "NOTE: the config's thresholds differ from the chosen point"]
    return "\n".join(lines + _cuts(result["curve"], chosen))
