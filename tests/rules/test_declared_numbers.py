"""Declared numbers cost what the checkpoint holds (issue 26 item 3): every integer key
the rules read, set to 2**31-1 and to 10**22, is judged through the engine in a process
limited to 1 GiB of address space, for each family under each of its profiles, and one
``fix --set`` of such a value runs through the CLI likewise: each finishes with findings
(or one clear refusal), never a MemoryError."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# every integer a rule reads from the drafter config (top level, nested, list items)
INT_KEYS = (
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "intermediate_size",
    "hidden_size",
    "target_hidden_size",
    "vocab_size",
    "draft_vocab_size",
    "markov_rank",
    "num_aux_hidden_states",
    "num_aux_layers",
    "mask_token_id",
    "block_size",
    "dspark_markov_rank",
    "dspark_noise_token_id",
    "dflash_config.markov_rank",
    "dflash_config.mask_token_id",
    "target_layer_ids[]",
    "eagle_aux_hidden_state_layer_ids[]",
    "eagle_config.eagle_aux_hidden_state_layer_ids[]",
)
HUGE = (2**31 - 1, 10**22)
# keys no loader of the family reads (another key wins, or the family has no such part):
# judging them changes nothing, at no cost. Every other key, huge, gets a finding.
NOT_READ = {
    "dspark": {"num_aux_hidden_states", "num_aux_layers", "block_size",
               "dflash_config.markov_rank", "eagle_config.eagle_aux_hidden_state_layer_ids[]"},
    "dflash": {"vocab_size", "num_aux_hidden_states", "num_aux_layers", "block_size",
               "dspark_markov_rank", "dspark_noise_token_id", "dflash_config.markov_rank",
               "eagle_config.eagle_aux_hidden_state_layer_ids[]"},
    # (the synth EAGLE-3 declares no heads: its first layer is not 2H wide)
    "eagle3": {"num_key_value_heads", "head_dim", "num_aux_layers", "mask_token_id",
               "block_size", "dspark_markov_rank", "dspark_noise_token_id",
               "dflash_config.markov_rank", "dflash_config.mask_token_id"},
}  # fmt: skip

# the backbone sizes of the synth drafter's [8, 8] projections and [8] norms (its EAGLE-3
# first layer is not 2H wide: the head sizes are left out there)
SIZES = {"num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 8, "intermediate_size": 8}

SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    sys.path[:0] = [ROOT, ROOT + "/fixtures"]
    import synth
    from dspark_ckpt.commands.inspect import inspect_checkpoint
    from dspark_ckpt.facts.target import load_target
    from dspark_ckpt.profiles.registry import PROFILES

    tmp = Path(TMP)
    synth.target(tmp / "target", {"architectures": ["Qwen3ForCausalLM"], "vocab_size": 100,
                 "hidden_size": 8, "num_hidden_layers": 8})
    target = load_target(tmp / "target")
    FAMILIES = {"dspark": {}, "dflash": {"architectures": ["DFlashDraftModel"]},
                "eagle3": {"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama"}}
    done, silent = 0, []

    def said(report):
        return sorted((f.code, f.profile or "", f.message) for f in report.findings)

    def write(cfg, tensors):
        folder = tmp / f"d{len(list(tmp.iterdir()))}"
        synth.write_json(folder / "config.json", cfg)
        synth.write_safetensors(folder / "model.safetensors", tensors)
        return folder
    for family, base in FAMILIES.items():
        profiles = [p.name for p in PROFILES.values() if p.family == family]
        for key in KEYS:
            for value in HUGE:
                cfg = synth.drafter_config(100, 100, 8)
                cfg.update(base, **(SIZES if family != "eagle3" else {"intermediate_size": 8}))
                clean = inspect_checkpoint(str(write(cfg, synth.complete(cfg, 8))), target, profiles)
                tensors = synth.complete(cfg, 8)  # what the checkpoint holds: one layer
                node, path = cfg, key.removesuffix("[]").split(".")
                for part in path[:-1]:
                    node = node.setdefault(part, {})
                node[path[-1]] = [value] if key.endswith("[]") else value
                report = inspect_checkpoint(str(write(cfg, tensors)), target, profiles)
                done += 1
                if said(report) == said(clean):
                    silent.append([family, key, value])
    print(json.dumps([done, silent]))
    """
)


def test_every_integer_key_costs_what_the_checkpoint_holds(tmp_path):
    script = f"ROOT = {str(ROOT)!r}\nTMP = {str(tmp_path)!r}\nKEYS = {INT_KEYS!r}\n"
    script += f"HUGE = {HUGE!r}\nSIZES = {SIZES!r}\n" + SCRIPT
    env = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    done, silent = json.loads(run.stdout)
    assert done == 3 * len(INT_KEYS) * len(HUGE)
    assert [(f, k, v) for f, k, v in silent if k not in NOT_READ[f]] == []


def test_fix_set_of_a_huge_layer_count_is_judged_in_constant_memory(tmp_path):
    sys.path.insert(0, str(ROOT / "fixtures"))
    import synth

    cfg = synth.drafter_config(100, 100, 8)
    folder = tmp_path / "drafter"
    synth.write_json(folder / "config.json", cfg)
    synth.write_safetensors(folder / "model.safetensors", synth.complete(cfg, 8))
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))"
    cli = f"{limit}; import sys; sys.argv[0] = 'dspark-ckpt'; from dspark_ckpt.cli import main; main()"
    run = subprocess.run(
        [sys.executable, "-c", cli, "fix", str(folder), "--target-vocab-size", "100",
         "--set", f"num_hidden_layers={10**22}", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert "MemoryError" not in run.stderr and "Traceback" not in run.stderr, run.stderr[-2000:]
    # refused in one line, the declared layers no tensor backs as one range
    assert run.returncode == 1, (run.returncode, run.stderr[-2000:])
    assert "DSC652" in run.stderr and f"no tensor at all for layers.1-{10**22 - 1}" in run.stderr
    assert not (tmp_path / "out").exists()
