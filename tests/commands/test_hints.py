"""Hints never send the user in circles: each says what the next step really is."""

from __future__ import annotations

from conftest import FIXTURES, cli

PADDED, SMALL = FIXTURES / "padded", FIXTURES / "targets/small"


def test_after_the_mask_is_written_dsc401_says_apply_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    obj = cli("fix", PADDED, "--target", SMALL, "--emit-mask", "--format", "json").json
    (dsc401,) = [f for f in obj["findings_after"] if f["code"] == "DSC401"]
    assert "--emit-mask" not in dsc401["hint"]  # not: write the mask you just wrote
    assert "the mask is written (draft_vocab_mask.safetensors)" in dsc401["hint"]
    table = cli("fix", PADDED, "--target", SMALL, "--emit-mask", "--mask-path", "m.safetensors")
    assert "fix: the mask is written (m.safetensors)" in table.stdout
    assert "fix --emit-mask`" not in table.stdout
    # inspect, which cannot see the side file, still points to it, after the trim (-v: the
    # hint whole, its command naming these long paths)
    assert "`--emit-mask`" in cli("inspect", PADDED, "--target", SMALL, "-v").stdout


def test_a_refused_d2t_copy_of_a_padded_drafter_names_the_profile_it_is_for(tmp_path):
    out = tmp_path / "out"
    r = cli("fix", PADDED, "--target", SMALL, "--emit-d2t", "--out", out)
    assert r.exit_code == 1 and not out.exists()
    assert "refused: the change would make this checkpoint fail vllm" in r.stderr
    assert "the change is for vllm-legacy: to write it, add --profile vllm-legacy" in r.stderr
    ok = cli(
        "fix", PADDED, "--target", SMALL, "--emit-d2t", "--out", out, "--profile", "vllm-legacy"
    )
    assert ok.exit_code == 0, ok.stderr


def test_fix_out_says_where_the_mask_went_and_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "copy"
    r = cli("fix", PADDED, "--target", SMALL, "--emit-mask", "--out", out, "--format", "json")
    assert r.exit_code == 0
    assert (tmp_path / "draft_vocab_mask.safetensors").is_file()
    assert not list(out.glob("*mask*"))
    note = next(n for n in r.json["notes"] if "not written into" in n)
    assert f"it is not written into {out}" in note and "loaded as weights" in note
    assert "--mask-path" in note
