"""The schema labels and fixed names of continuity seals (FORMATS §6), and the
arcaeon-baseline version whose registrations they reproduce."""

from __future__ import annotations

__all__ = [
    "SNAPSHOT_SCHEMA",
    "VERDICT_SCHEMA",
    "CHECKPOINT_SCHEMA",
    "REGISTRATION_SCHEMA",
    "DIFF_SCHEMA",
    "SCORING_SEMANTICS",
    "BASELINE_VERSION",
    "KNOWN_SCORING_TYPES",
    "AGAINST_FILE",
    "PROBES_FILE",
]

SNAPSHOT_SCHEMA = "arcaeon-continuity:snapshot:v1"
VERDICT_SCHEMA = "arcaeon-continuity:verdict:v1"
CHECKPOINT_SCHEMA = "arcaeon-continuity:checkpoint:v1"
REGISTRATION_SCHEMA = "arcaeon-baseline:registration:v1"
DIFF_SCHEMA = "arcaeon-baseline:diff:v1"
SCORING_SEMANTICS = "arcaeon-baseline:scoring:v2"
BASELINE_VERSION = "0.1.9"
KNOWN_SCORING_TYPES = frozenset({"exact_match", "numeric_tolerance", "calibration"})

# The reference round-trips probes and the registration through files in a
# temporary folder and names them in messages and in `receipt.against_file`.
# These stable placeholders stand in for those paths; no digest covers them.
AGAINST_FILE = "<sealscope:in-memory>/registration.json"
PROBES_FILE = "<sealscope:in-memory>/probes.jsonl"
