"""The VizWiz-Captions dataset format, built from accepted captions.
Input (captions): ``assignment_id, worker_id, batch, image_id, caption, caption_corrected, is_precanned,
text_present, is_rejected``, optionally ``qualification_score`` and ``text_origin`` ("unknown" when absent).
Input (items): ``image_id, file_name``.
Output: ``{"images": [...], "annotations": [...]}`` as VizWiz-Captions, with lineage on each annotation and
the paper's difficulty on each image (easy: no canned caption, medium 1-2, difficult 3-4, all_canned), and
the same annotations as one flat table."""

from __future__ import annotations

from typing import Any

import pandas as pd

DIFFICULTY = {0: "easy", 1: "medium", 2: "medium", 3: "difficult", 4: "difficult"}


def _id(value: Any) -> Any:
    text = str(value)
    return int(text) if text.isdigit() else text


def text_detected(captions: pd.DataFrame) -> pd.Series:
    """1 where a strict majority of the image's workers said text is present."""
    said_yes = captions["text_present"].fillna("").astype(str).str.lower().isin(["yes", "y", "1", "true"])
    frame = pd.DataFrame({"image_id": captions["image_id"], "yes": said_yes})
    share = frame.groupby("image_id")["yes"].mean()
    return (share > 0.5).astype(int)


def difficulty(captions: pd.DataFrame) -> pd.DataFrame:
    """Per image: how many captions are canned, and the paper's difficulty level."""
    counts = captions.groupby("image_id")["is_precanned"].agg(["sum", "count"])
    out = pd.DataFrame({"image_id": counts.index, "canned": counts["sum"].astype(int).values,
                        "captions": counts["count"].astype(int).values})
    out["difficulty"] = [
        DIFFICULTY.get(c, "all_canned") if c < n or n == 0 else "all_canned"
        for c, n in zip(out["canned"], out["captions"], strict=True)]
    return out


def canned_per_image(captions: pd.DataFrame) -> pd.Series:
    """Per image: how many of its captions are the canned text."""
    return captions.groupby("image_id")["is_precanned"].sum().astype(int)


def canned_table(counts: pd.Series, per_image: int = 5) -> pd.DataFrame:
    """Share of images whose captions used the canned text 0..per_image times, from :func:`canned_per_image`."""
    rows = [{"workers_using_canned": k, "images": int((counts == k).sum()),
             "share": round(float((counts == k).mean()) if len(counts) else 0.0, 4)}
            for k in range(per_image + 1)]
    return pd.DataFrame(rows)


def flat_table(captions: pd.DataFrame, items: pd.DataFrame, first_id: int = 1) -> pd.DataFrame:
    """One row per caption, ids from ``first_id`` (a batch-at-a-time dataset goes on where the last stopped)."""
    merged = captions.merge(items[["image_id", "file_name"]], on="image_id", how="left")  # a fresh 0..n-1 index
    flat = pd.DataFrame({
        "id": range(first_id, first_id + len(merged)), "image_id": merged["image_id"], "file_name": merged["file_name"],
        "caption": merged["caption_corrected"], "is_precanned": merged["is_precanned"].astype(int),
        "is_rejected": merged["is_rejected"].astype(int), "worker_id": merged["worker_id"],
        "assignment_id": merged["assignment_id"], "batch": merged["batch"].astype(int),
        "caption_original": merged["caption"], "edits": merged.get("edits", ""),
    })
    if "qualification_score" in merged:
        flat["qualification_score"] = merged["qualification_score"]
    # how the text arrived: typed / in-page paste / external paste / mixed / unknown
    flat["text_origin"] = merged.get("text_origin", "unknown")
    return flat


def _score(row: dict[str, Any]) -> dict[str, float]:
    score = row.get("qualification_score")
    return {} if score is None or pd.isna(score) else {"qualification_score": float(score)}


INFO = {"description": "hitflow VizWiz-Captions-format dataset"}


def vizwiz_parts(captions: pd.DataFrame, items: pd.DataFrame, flat: pd.DataFrame | None = None
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """dataset.json's ``images`` and ``annotations`` (beside :data:`INFO`); ``flat``: their flat_table, made already."""
    flat = flat_table(captions, items) if flat is None else flat
    accepted = captions[~captions["is_rejected"].astype(bool)]
    detected = text_detected(accepted)
    levels = difficulty(accepted).set_index("image_id")["difficulty"]
    seen = items[items["image_id"].isin(captions["image_id"])]
    images = [{"id": _id(r.image_id), "file_name": r.file_name, "text_detected": int(detected.get(r.image_id, 0)),
               "difficulty": str(levels.get(r.image_id, "unknown"))}
              for r in seen.itertuples()]
    annotations = [{"id": int(r["id"]), "image_id": _id(r["image_id"]), "caption": r["caption"],
                    "is_precanned": int(r["is_precanned"]), "is_rejected": int(r["is_rejected"]),
                    "worker_id": r["worker_id"], "assignment_id": r["assignment_id"], "batch": int(r["batch"]),
                    "caption_original": r["caption_original"], "text_origin": r["text_origin"], **_score(r)}
                   for r in flat.to_dict("records")]
    return images, annotations
