from conftest import FIXTURES, cli


def test_padded_fixture_passes_vllm_with_warning():
    r = cli(
        "inspect", FIXTURES / "padded", "--target", FIXTURES / "targets/small", "--format", "json"
    )
    assert r.exit_code == 0
    assert r.json["classification"] == "padded"
    assert [f["code"] for f in r.json["findings"]] == ["DSC401"]
