"""Every finding code has rule cases: at least one row where it fires and one clean twin
where it does not. A new code without both fails here."""

from __future__ import annotations

import test_architectures
import test_behaviour_rules
import test_deepseek_eagle_rules
import test_load_rules
import test_loader_rules
import test_map_rules
import test_mistral_rules
import test_model_rules
import test_mtp_rules
import test_report_cases
import test_report_cases_3
import test_report_cases_4
import test_report_cases_5
import test_report_cases_mtp
import test_sglang_rules
import test_shape_rules
import test_target_rules
import test_variant_rules

from dspark_ckpt.rules.codes import CODES

TABLES = (
    test_load_rules,
    test_loader_rules,
    test_shape_rules,
    test_map_rules,
    test_target_rules,
    test_sglang_rules,
    test_model_rules,
    test_behaviour_rules,
    test_report_cases,
    test_report_cases_3,
    test_report_cases_4,
    test_report_cases_5,
    test_architectures,
    test_variant_rules,
    test_mistral_rules,
    test_deepseek_eagle_rules,
)
ALL = [c for table in TABLES for c in table.CASES]  # the drafter rows (rules_harness.Bench)
# the MTP rows: a target checkpoint, not a drafter (rules/mtp.py; test_mtp_rules.py runs them)
MTP = test_mtp_rules.CASES + test_report_cases_mtp.CASES


def test_every_code_has_firing_and_clean_cases():
    firing = {c.code for c in ALL + MTP if c.fires}
    cleaned = {c.code for c in ALL + MTP if not c.fires}
    assert sorted(set(CODES) - firing) == [], "codes without a firing case"
    assert sorted(set(CODES) - cleaned) == [], "codes without a clean case"
    assert firing == cleaned == set(CODES), "cases for codes that do not exist"


def test_case_ids_are_unique():
    ids = [c.id for c in ALL + MTP]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
