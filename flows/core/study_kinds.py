"""The evaluation studies' kinds, item columns and screen questions."""

from __future__ import annotations

KINDS = ("expert_rating", "crowd_selection", "error_analysis", "pairwise_grading", "severity_rating")
COLUMNS = {
    "expert_rating": ("item_id", "image_url", "sentence"),
    "crowd_selection": ("image_id", "image_url", "sentence_id", "sentence"),
    "error_analysis": ("item_id", "image_url", "description"),
    "pairwise_grading": ("image_id", "image_url", "reference", "system", "description"),
    "severity_rating": ("item_id", "image_url", "reference", "description", "condition", "role"),
}
DEMOGRAPHICS = {
    "gender": ["female", "male", "other", "prefer not to say"],
    "education": ["secondary school or less", "vocational", "university", "postgraduate"],
    "proficiency": ["native", "fluent", "intermediate", "beginner"],
    "colour_blind": ["no", "yes"],
}
DEMOGRAPHIC_LABELS = {"gender": "Gender", "education": "Highest education",
                      "proficiency": "Proficiency in the language of the descriptions",
                      "colour_blind": "Are you colour-blind?"}
